import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { encodeGguf, startApi } from '@svc/testing'
import { describe, expect, it } from 'vitest'

const FIXTURE = fileURLToPath(new URL('./fixtures/echo-provider.ts', import.meta.url))

describe('a third-party provider', () => {
  it('imports only @svc/providers (and Node built-ins)', async () => {
    const source = await readFile(FIXTURE, 'utf8')
    const imports = [...source.matchAll(/from '([^']+)'/g)].map((m) => m[1])
    expect(imports).toEqual(['node:url', '@svc/providers'])
  })

  it('is registered for a custom slot, loaded and served with no change to slot-manager code', async () => {
    await using api = await startApi({ env: { SVC_PROVIDER_MODULES: FIXTURE } })
    // The slot is created through the API (written to slots/echo.toml), then loaded.
    const put = await fetch(`${api.url}/api/slots/echo`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ provider: 'echo' }),
    })
    expect(put.status).toBe(200)
    const weights = join(api.stateDir, 'echo-weights.gguf')
    // A GGUF header with no tensors: the echo upstream never reads it (svc checks the header).
    await writeFile(weights, encodeGguf(new Map(), []))
    const load = await fetch(`${api.url}/api/slots/echo/load?wait=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: weights }),
    })
    expect(load.status, api.output()).toBe(200)
    expect(await load.json()).toMatchObject({
      name: 'echo',
      provider: 'echo',
      state: 'ready',
      model: 'echo-weights',
    })

    const chat = await fetch(`${api.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'echo', messages: [{ role: 'user', content: 'hi' }] }),
    })
    expect(chat.status).toBe(200)
    const body = await chat.json()
    expect(body.object).toBe('chat.completion')
    expect(body.model).toBe('echo-weights')
    // The registry ref routes to the same slot.
    const byRef = await fetch(`${api.url}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'echo-weights', prompt: 'hi' }),
    })
    expect(byRef.status).toBe(200)
  })
})
