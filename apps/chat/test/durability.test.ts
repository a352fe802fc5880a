/**
 * The database survives `kill -9` of the chat server in the middle of an answer: intact (SQLite's
 * own integrity check), the conversation kept, the partial answer either absent or kept as a prefix
 * of what the browser had received and marked `interrupted`, never torn. The upstream stops too.
 */
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Conversation } from '../src/server/store/types'
import { startChatProcess } from './chat-process'
import { type LiveStack, partsAvailable, startLiveStack, tokensPredicted, upstreamBusy } from './live-stack'

const available = partsAvailable()

/**
 * Reads an answer stream; once `enough` says so, calls `then` (the kill) and reads on until the
 * stream ends, so the text answered is all the server had sent: deltas it wrote before it died may
 * still sit unread in this end's socket, and the server may have saved them.
 */
async function readUntil(
  res: Response,
  enough: (text: string, elapsedMs: number) => boolean,
  then: () => void,
): Promise<string> {
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  const t0 = Date.now()
  let buffer = ''
  let received = ''
  let done = false
  try {
    while (true) {
      const read = await reader.read()
      if (read.done) return received
      buffer += decoder.decode(read.value, { stream: true })
      for (const m of buffer.matchAll(/event: delta\ndata: (.*)\n\n/g)) {
        received += (JSON.parse(m[1]!) as { content?: string }).content ?? ''
      }
      buffer = buffer.slice(buffer.lastIndexOf('\n\n') + 2)
      if (!done && enough(received, Date.now() - t0)) {
        done = true
        then()
      }
    }
  } catch {
    return received // the connection ended with the process
  }
}

describe.skipIf(!available)('kill -9 of the chat server mid-stream', () => {
  let stack: LiveStack

  beforeAll(async () => {
    stack = await startLiveStack({ slow: true })
  }, 120_000)
  afterAll(async () => {
    await stack?.[Symbol.asyncDispose]()
  })

  // Three kills at different moments: right after the first tokens, and after one and two saves.
  it.each([[0], [400], [900]])(
    'leaves an intact database when killed %i ms into an answer',
    async (afterMs) => {
      const first = await startChatProcess({ env: { SVC_CHAT_API_URL: stack.api.url } })
      const stateDir = first.stateDir
      const post = (path: string, body: unknown) =>
        fetch(first.url + path, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      const { conversation } = (await (
        await post('/api/conversations', { title: 'Before the crash' })
      ).json()) as {
        conversation: Conversation
      }
      const before = await tokensPredicted(stack.api, 'slow')
      const answered = await post(`/api/conversations/${conversation.id}/messages`, {
        content: 'go on',
        model: 'slow',
      })
      expect(answered.status).toBe(200)
      const received = await readUntil(
        answered,
        (text, ms) => text.length > 0 && ms >= afterMs,
        () => first.child.kill('SIGKILL'),
      )
      await first.stop()

      // The file as the dead process left it: SQLite finds nothing wrong.
      const raw = new Database(join(stateDir, 'chat', 'chat.db'))
      expect(raw.pragma('integrity_check', { simple: true })).toBe('ok')
      expect(raw.pragma('foreign_key_check')).toEqual([])
      raw.close()

      // The upstream noticed its client go and stopped generating.
      // Polled, with room for a busy machine; the token count tells a stop from an answer run to the
      // end of its context (~4000 tokens, over a minute).
      await expect.poll(() => upstreamBusy(stack.api, 'slow'), { timeout: 15_000 }).toBe(false)
      expect((await tokensPredicted(stack.api, 'slow')) - before).toBeLessThan(1000)

      await using second = await startChatProcess({ stateDir, env: { SVC_CHAT_API_URL: stack.api.url } })
      const kept = (
        (await (await fetch(`${second.url}/api/conversations/${conversation.id}`)).json()) as {
          conversation: Conversation
        }
      ).conversation
      expect(kept.title).toBe('Before the crash')
      expect(kept.messages[0]).toMatchObject({ role: 'user', content: 'go on', status: 'complete' })
      // The answer's row exists from its first moment; it holds the last save before the kill.
      const answer = kept.messages[1]!
      expect(kept.messages).toHaveLength(2)
      expect(answer.status).toBe('interrupted')
      expect(received.startsWith(answer.content)).toBe(true)
      // Saved every 250 ms while streaming: most of a second in, something was saved.
      if (afterMs >= 900) expect(answer.content.length).toBeGreaterThan(0)
      // …and the conversation goes on.
      const next = await fetch(`${second.url}/api/conversations/${conversation.id}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ content: 'again', model: 'primary' }),
      })
      expect(await next.text()).toMatch(/event: done\ndata: \{"message":\{[^\n]*"status":"complete"/)
      await rmState(stateDir)
    },
    60_000,
  )
})

async function rmState(dir: string): Promise<void> {
  const { rm } = await import('node:fs/promises')
  await rm(dir, { recursive: true, force: true })
}
