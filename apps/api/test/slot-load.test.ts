/**
 * `POST /api/slots/:slot/load` (no wait) answers a model that cannot be loaded
 * with its error — however long resolving it takes — and 202 only once the load really started.
 */
import { stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { detectHardware } from '@svc/providers'
import { describe, expect, it } from 'vitest'
import { testApp } from './helpers'

describe('POST /api/slots/:slot/load', () => {
  it('answers a refused model with its error even when resolving it is slow (no 50 ms race)', async () => {
    let detections = 0
    const { app, deps } = await testApp(
      {},
      {
        hardware: {
          detect: async () => {
            // The first detection (at start) is quick; later ones take a while, as a real one can.
            if (detections++ > 0) await new Promise((r) => setTimeout(r, 300))
            return detectHardware({
              root: '/nonexistent-machine',
              env: { PATH: '', SVC_CACHE_DIR: '/nonexistent-cache' },
              probeEngine: async () => ({ ok: false, error: 'no engine' }),
            })
          },
        },
      },
    )
    // Someone refreshes the hardware view while the load comes in.
    const refreshing = deps.slots.picker!.report({ refresh: true })
    const res = await app.request('/api/slots/primary/load', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'qwen3-0.6b-q8_0' }),
    })
    expect(detections).toBe(2)
    expect(res.status).toBe(409)
    expect(await res.json()).toMatchObject({ error: { code: 'backend.unavailable' } })
    await refreshing
  })

  it('answers an unknown model 404 and a known one 202', async () => {
    const { app } = await testApp()
    const unknown = await app.request('/api/slots/primary/load', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'no-such-model' }),
    })
    expect(unknown.status).toBe(404)
    const known = await app.request('/api/slots/mine/load', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'qwen3-0.6b-q8_0' }),
    })
    expect(known.status).toBe(202)
    await app.request('/api/slots/mine/unload?wait=true', { method: 'POST' })
  })

  it('refuses a file of another kind with 400 and registers nothing', async () => {
    const { app, deps } = await testApp()
    // An image checkpoint named for the `llm` slot `mine`: a mistake, not a new model.
    const file = join(deps.paths.stateDir, '..', 'sdxl-turbo-checkpoint.safetensors')
    // A safetensors header (8-byte length, JSON): a checkpoint as far as svc's header check goes.
    await writeFile(file, Buffer.concat([Buffer.from([2, 0, 0, 0, 0, 0, 0, 0]), Buffer.from('{}')]))
    const res = await app.request('/api/slots/mine/load', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: file }),
    })
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({
      error: {
        code: 'request.invalid',
        param: 'model',
        message: expect.stringMatching(/for the image provider/),
      },
    })
    const models = (await (await app.request('/api/models')).json()) as { models: { id: string }[] }
    expect(models.models.map((m) => m.id)).not.toContain('sdxl-turbo-checkpoint')
    expect(await stat(join(deps.paths.stateDir, 'models', 'registry.json')).catch(() => null)).toBeNull()
  })
})
