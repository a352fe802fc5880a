/**
 * The prompt worker (main.py `prompt_worker` + execution.py `PromptExecutor`): takes queued prompts
 * one at a time, lowest number first, runs the nodes reachable from the output nodes in dependency
 * order, and sends the events ComfyUI sends, in its order:
 *
 *   execution_start → execution_cached → (progress_state, executing, [progress…], executed)× nodes →
 *   execution_success | execution_error | execution_interrupted → history written → status →
 *   executing {node: null}
 *
 * Events about a prompt go only to the socket of its `client_id` (none → not sent), except
 * `progress` (broadcast when there is no client id) and `execution_interrupted` (always broadcast).
 * Like ComfyUI's classic cache, a node whose inputs are identical to a node of the previous prompt is
 * not run again: it is listed in `execution_cached` and its UI output (the same file names) is reused.
 */
import { setTimeout as sleep, setImmediate as yieldToLoop } from 'node:timers/promises'
import type { ComfyDirs } from './input-files'
import { type NodeResult, type NodeValue, runNode } from './node-runners'
import type { NodeSchemas } from './node-schemas'
import type { HistoryEntry, PromptQueue, QueueItem } from './prompt-queue'
import { queueTuple } from './prompt-queue'
import { isDict, type PyDict, PyException, type PyValue, toPyJson } from './py-values'
import type { WsHub } from './ws-hub'

/** What tests may change while the stand-in runs. */
export interface RunSettings {
  /** ms a prompt waits after `execution_start` before its first node (a model load). */
  delayMs: number
  /** ms per sampler step. */
  stepDelayMs: number
  /** `true` or a message: the first sampler node raises (`execution_error`). */
  failExecution: boolean | string
}

export const DEFAULT_FAILURE_MESSAGE = 'stand-in told to fail (failExecution)'

export interface ExecutorOptions {
  schemas: NodeSchemas
  queue: PromptQueue
  hub: WsHub
  dirs: ComfyDirs
  settings(): RunSettings
}

export interface Executor {
  /** Starts working through the queue if idle. */
  wake(): void
  /** Interrupts the running prompt (ComfyUI's global `interrupt_processing`); no-op when idle. */
  interrupt(): void
  /** The node running now, when the running prompt belongs to `sid` (re-sent on reconnect). */
  currentNodeFor(sid: string): string | null
  close(): Promise<void>
}

class Interrupted extends Error {}

/** Depth-first from the outputs; a cached node is a leaf (its inputs are not visited). */
function executionOrder(prompt: PyDict, outputs: string[], isCached: (id: string) => boolean): string[] {
  const order: string[] = []
  const seen = new Set<string>()
  const visit = (id: string) => {
    if (seen.has(id)) return
    seen.add(id)
    const node = prompt[id] as PyDict
    if (!isCached(id)) {
      for (const value of Object.values(node.inputs as PyDict)) {
        if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string') visit(value[0])
      }
    }
    order.push(id)
  }
  for (const o of outputs) visit(o)
  return order
}

/** A node's cache key: its class and inputs, with links replaced by the source's key. */
function signatures(prompt: PyDict): (id: string) => string {
  const memo = new Map<string, string>()
  const sig = (id: string): string => {
    const hit = memo.get(id)
    if (hit !== undefined) return hit
    memo.set(id, '') // a cycle (only possible among unreachable nodes) ends here
    const node = prompt[id]
    const inputs: PyDict = {}
    if (isDict(node) && isDict(node.inputs)) {
      for (const [k, v] of Object.entries(node.inputs)) {
        const link = Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && v[0] in prompt
        inputs[k] = link ? [sig(v[0] as string), v[1]!] : v
      }
    }
    const s = toPyJson([isDict(node) ? (node.class_type ?? null) : null, inputs])
    memo.set(id, s)
    return s
  }
  return sig
}

export function createExecutor(options: ExecutorOptions): Executor {
  const { queue, hub, schemas } = options
  let cache = new Map<string, NodeResult>()
  let worker: Promise<void> | undefined
  let closed = false
  let current: {
    item: QueueItem
    abort: AbortController
    node: string | null
    clientId: string | null
  } | null = null

  async function work(): Promise<void> {
    for (let item = queue.take(); item && !closed; item = queue.take()) await execute(item)
    worker = undefined
  }

  async function execute(item: QueueItem): Promise<void> {
    const { promptId: prompt_id, prompt } = item
    // server.client_id: a non-string id matches no socket, but still counts as "has a client"
    const raw = item.extraData.client_id
    const clientId = raw === undefined || raw === null ? null : typeof raw === 'string' ? raw : ''
    const abort = new AbortController()
    const run = { item, abort, node: null as string | null, clientId }
    current = run
    const settings = options.settings()
    const messages: [string, PyDict][] = []
    const add = (event: string, data: PyDict, broadcast = false) => {
      const stamped = { ...data, timestamp: Date.now() }
      messages.push([event, stamped])
      if (clientId !== null || broadcast) hub.send(event, stamped, clientId)
    }
    const toClient = (event: string, data: PyDict) => {
      if (clientId !== null) hub.send(event, data, clientId)
    }
    const progress: PyDict = {}
    const progressState = (id: string, state: string, value: number, max: number) => {
      progress[id] = {
        value,
        max,
        state,
        node_id: id,
        prompt_id,
        display_node_id: id,
        parent_node_id: null,
        real_node_id: id,
      }
      toClient('progress_state', { prompt_id, nodes: progress })
    }

    add('execution_start', { prompt_id })
    const sig = signatures(prompt)
    const order = executionOrder(prompt, item.outputs, (id) => cache.has(sig(id)))
    add('execution_cached', { nodes: Object.keys(prompt).filter((id) => cache.has(sig(id))), prompt_id })

    const results = new Map<string, NodeResult>()
    const fresh = new Map<string, NodeResult>()
    const executed: string[] = []
    const outputs: PyDict = {}
    const meta: PyDict = {}
    let failed = false
    let failNext = settings.failExecution
    const keepUi = (id: string, ui: PyDict) => {
      outputs[id] = ui
      meta[id] = { node_id: id, display_node: id, parent_node: null, real_node_id: id }
    }
    try {
      run.node = order.find((id) => !cache.has(sig(id))) ?? null
      if (settings.delayMs > 0) await sleep(settings.delayMs, undefined, { signal: abort.signal })
      for (const id of order) {
        const node = prompt[id] as PyDict
        const cached = cache.get(sig(id))
        if (cached) {
          toClient('executed', { node: id, display_node: id, output: cached.ui ?? null, prompt_id })
          if (cached.ui) keepUi(id, cached.ui)
          results.set(id, cached)
          fresh.set(sig(id), cached)
          continue
        }
        if (abort.signal.aborted) throw new Interrupted()
        run.node = id
        toClient('executing', { node: id, display_node: id, prompt_id })
        progressState(id, 'running', 0, 1)
        const schema = schemas.get(String(node.class_type))!
        const inputs: Record<string, PyValue> = {}
        const links: Record<string, NodeValue> = {}
        for (const [k, v] of Object.entries(node.inputs as PyDict)) {
          if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'string') {
            const source = results.get(v[0])!
            const slot = Number(v[1])
            links[k] = source.outputs[slot < 0 ? source.outputs.length + slot : slot]!
          } else inputs[k] = v
        }
        const result = await runNode({
          id,
          schema,
          inputs,
          links,
          prompt,
          extraData: item.extraData,
          dirs: options.dirs,
          beginSampling() {
            if (failNext === false) return
            const message = failNext === true ? DEFAULT_FAILURE_MESSAGE : failNext
            failNext = false
            throw new PyException('RuntimeError', message)
          },
          async step(value, max) {
            if (abort.signal.aborted) throw new Interrupted()
            hub.send('progress', { value, max, prompt_id, node: id }, clientId)
            if (settings.stepDelayMs > 0)
              await sleep(settings.stepDelayMs, undefined, { signal: abort.signal })
            else await yieldToLoop()
          },
        })
        results.set(id, result)
        fresh.set(sig(id), result)
        executed.push(id)
        if (result.ui) {
          keepUi(id, result.ui)
          toClient('executed', { node: id, display_node: id, output: result.ui, prompt_id })
        }
        progressState(id, 'finished', 1, 1)
        await yieldToLoop()
      }
      add('execution_success', { prompt_id })
    } catch (thrown) {
      failed = true
      const nodeId = run.node ?? item.outputs[0] ?? ''
      const nodeType = String((prompt[nodeId] as PyDict | undefined)?.class_type ?? '')
      if (thrown instanceof Interrupted || abort.signal.aborted) {
        add('execution_interrupted', { prompt_id, node_id: nodeId, node_type: nodeType, executed }, true)
      } else {
        const ex =
          thrown instanceof PyException ? thrown : new PyException('Exception', (thrown as Error).message)
        const node = prompt[nodeId]
        const currentInputs: PyDict = {}
        if (isDict(node) && isDict(node.inputs)) {
          for (const [k, v] of Object.entries(node.inputs)) {
            currentInputs[k] = [Array.isArray(v) ? `<output ${String(v[1])} of node ${String(v[0])}>` : v]
          }
        }
        add('execution_error', {
          prompt_id,
          node_id: nodeId,
          node_type: nodeType,
          executed,
          exception_message: ex.message,
          exception_type: ex.pyType,
          traceback: [`  File "comfyui-stand-in/executor.ts", in ${nodeType}\n`],
          current_inputs: currentInputs,
          current_outputs: [...results.keys()],
        })
      }
    }
    // like the classic cache's clean_unused(): keep what this prompt's nodes produced or re-used
    for (const id of Object.keys(prompt)) {
      const hit = cache.get(sig(id))
      if (hit && !fresh.has(sig(id))) fresh.set(sig(id), hit)
    }
    cache = fresh
    current = null
    const entry: HistoryEntry = {
      prompt: queueTuple(item),
      outputs,
      status: { status_str: failed ? 'error' : 'success', completed: !failed, messages },
      meta,
    }
    queue.done(item, entry)
    if (clientId !== null) hub.send('executing', { node: null, prompt_id }, clientId)
  }

  return {
    wake() {
      if (!worker && !closed) worker = work()
    },
    interrupt() {
      current?.abort.abort()
    },
    currentNodeFor(sid) {
      return current && current.clientId === sid ? current.node : null
    },
    async close() {
      closed = true
      current?.abort.abort()
      await worker
    },
  }
}
