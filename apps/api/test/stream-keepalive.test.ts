/**
 * llama-server answers a streamed chat with `Keep-Alive` and then closes the connection; svc keeps
 * its upstream connections alive, so the next request could go out on a socket the engine already
 * closed and fail with a 502 (`ECONNRESET`). Back-to-back streams must all succeed.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startApi, writeSvcConfig, writeTinyGguf } from '@svc/testing'
import { describe, expect, it, onTestFinished } from 'vitest'
import { streamChat } from './chat-requests'
import { LIGHT_ARGS, llamaServerAvailable, loadOk } from './live'

const available = llamaServerAvailable()

describe.skipIf(!available)('streams to llama-server one after another', () => {
  it('all succeed although llama-server closes the connection after each stream', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-keepalive-'))
    onTestFinished(() => rm(dir, { recursive: true, force: true }))
    const gguf = (await writeTinyGguf(join(dir, 'tiny-chat.gguf'), { role: 'chat' })).path
    await writeSvcConfig(dir, { slots: { primary: LIGHT_ARGS } })
    await using api = await startApi({ configDir: dir })
    await loadOk(api, 'primary', gguf)
    const statuses: string[] = []
    for (let i = 0; i < 20; i++) {
      const res = await streamChat(api, { model: 'primary', max_tokens: 4 })
      const text = await res.text()
      statuses.push(
        res.status === 200 && text.includes('data: [DONE]') ? 'ok' : `${res.status} ${text.slice(0, 200)}`,
      )
    }
    expect(statuses).toEqual(Array(20).fill('ok'))
  }, 60_000)
})
