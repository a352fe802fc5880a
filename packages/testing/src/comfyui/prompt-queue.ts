/**
 * ComfyUI's `PromptQueue` (execution.py): a priority queue of `(number, prompt_id, prompt,
 * extra_data, outputs_to_execute)` taken lowest `number` first, the item currently running, and the
 * in-memory history (insertion order, capped at 10000 entries, lost on restart).
 */
import type { PyDict, PyFloat, PyValue } from './py-values'
import { pyCompare } from './py-values'

export interface QueueItem {
  /** Queue priority: the server's counter, or `float(number)` when the client sent one. */
  number: number | PyFloat
  promptId: string
  /** The API graph as validated (coerced). */
  prompt: PyDict
  /** `extra_data`, with `client_id` copied in. */
  extraData: PyDict
  outputs: string[]
}

export interface HistoryStatus {
  status_str: 'success' | 'error'
  completed: boolean
  /** `[event, data]` pairs: execution_start, execution_cached, then success / error / interrupted. */
  messages: [string, PyDict][]
}

export interface HistoryEntry {
  prompt: PyValue[]
  outputs: PyDict
  status: HistoryStatus
  meta: PyDict
}

/** The 5-tuple ComfyUI shows in `/queue` and history. */
export function queueTuple(item: QueueItem): PyValue[] {
  return [item.number, item.promptId, item.prompt, item.extraData, item.outputs]
}

const MAXIMUM_HISTORY_SIZE = 10000

export interface PromptQueue {
  put(item: QueueItem): void
  /** Takes the next item (lowest number, then prompt id) and marks it running. */
  take(): QueueItem | undefined
  /** Stores the running item's history entry and clears it. */
  done(item: QueueItem, entry: HistoryEntry): void
  running(): QueueItem | undefined
  pending(): QueueItem[]
  /** pending + running (`exec_info.queue_remaining`). */
  remaining(): number
  /** Removes pending items whose prompt id is `promptId`. */
  deletePending(promptId: PyValue): void
  wipe(): void
  history(promptId?: string, maxItems?: number, offset?: number): Record<string, HistoryEntry>
  deleteHistory(promptId: PyValue): void
  clearHistory(): void
}

function before(a: QueueItem, b: QueueItem): boolean {
  const c = pyCompare(a.number, b.number)
  return c === -1 || (c === 0 && a.promptId < b.promptId)
}

/** `onChange` runs on every queue change (ComfyUI's `queue_updated` → a `status` broadcast). */
export function createPromptQueue(onChange: () => void): PromptQueue {
  const pending: QueueItem[] = []
  let current: QueueItem | undefined
  const history = new Map<string, HistoryEntry>()

  return {
    put(item) {
      pending.push(item)
      onChange()
    },
    take() {
      if (pending.length === 0) return undefined
      let best = 0
      for (let i = 1; i < pending.length; i++) if (before(pending[i]!, pending[best]!)) best = i
      current = pending.splice(best, 1)[0]
      onChange()
      return current
    },
    done(item, entry) {
      history.delete(item.promptId) // a re-used prompt id overwrites (and moves to the end)
      history.set(item.promptId, entry)
      while (history.size > MAXIMUM_HISTORY_SIZE) history.delete(history.keys().next().value as string)
      if (current === item) current = undefined
      onChange()
    },
    running: () => current,
    pending: () => [...pending],
    remaining: () => pending.length + (current ? 1 : 0),
    deletePending(promptId) {
      const i = pending.findIndex((p) => p.promptId === promptId)
      if (i >= 0) {
        pending.splice(i, 1)
        onChange()
      }
    },
    wipe() {
      pending.length = 0
      onChange()
    },
    history(promptId, maxItems, offset = -1) {
      if (promptId !== undefined) {
        const entry = history.get(promptId)
        return entry ? { [promptId]: entry } : {}
      }
      const out: Record<string, HistoryEntry> = {}
      let start = offset
      if (start < 0 && maxItems !== undefined) start = history.size - maxItems
      let i = 0
      for (const [id, entry] of history) {
        if (i >= start) {
          out[id] = entry
          if (maxItems !== undefined && Object.keys(out).length >= maxItems) break
        }
        i++
      }
      return out
    },
    deleteHistory(promptId) {
      if (typeof promptId === 'string') history.delete(promptId)
    },
    clearHistory() {
      history.clear()
    },
  }
}
