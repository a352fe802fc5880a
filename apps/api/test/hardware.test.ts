import { createPicker, detectHardware } from '@svc/providers'
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { renderError } from '../src/errors'
import { silentLogger } from '../src/logger'
import { hardwareRoutes } from '../src/routes/hardware'

describe('GET /api/hardware', () => {
  it('shows what was found and, per provider, the backends it can honour', async () => {
    let detections = 0
    const picker = createPicker({
      detect: () => {
        detections++
        return detectHardware({
          root: '/nonexistent-machine',
          env: { PATH: '', SVC_CACHE_DIR: '/nonexistent-cache' },
          probeEngine: async () => ({ ok: false, error: 'connect ENOENT /var/run/docker.sock' }),
        })
      },
      providers: [{ kind: 'llm', backends: ['vulkan', 'cpu'], hostProgram: 'llama-server' }],
    })
    const routes = hardwareRoutes({ hardware: picker })
    const res = await routes.request('/')
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body).toMatchObject({
      hardware: { vulkan: { renderNodes: [] }, container: { ok: false } },
      providers: {
        llm: {
          vulkan: { ok: false, reason: 'no GPU render node (/dev/dri/renderD*)' },
          cpu: { ok: false, reason: expect.stringContaining('llama-server is not installed') },
        },
      },
      defaults: { llm: null },
    })
    await routes.request('/')
    expect(detections).toBe(1)
    await routes.request('/?refresh=1')
    expect(detections).toBe(2)
  })

  it('runs concurrent refreshes as one detection (a cheap call cannot start unbounded work)', async () => {
    let detections = 0
    const picker = createPicker({
      detect: async () => {
        detections++
        await new Promise((r) => setTimeout(r, 100))
        return detectHardware({
          root: '/nonexistent-machine',
          env: { PATH: '', SVC_CACHE_DIR: '/nonexistent-cache' },
          probeEngine: async () => ({ ok: false, error: 'no engine' }),
        })
      },
      providers: [{ kind: 'llm', backends: ['cpu'], hostProgram: 'llama-server' }],
    })
    const routes = hardwareRoutes({ hardware: picker })
    const replies = await Promise.all(Array.from({ length: 50 }, () => routes.request('/?refresh=1')))
    expect(replies.every((r) => r.status === 200)).toBe(true)
    expect(detections).toBe(1)
    // Once that one is done, a refresh detects again.
    await routes.request('/?refresh=1')
    expect(detections).toBe(2)
  })

  it('is a 404 when no picker is wired', async () => {
    const app = new Hono().route('/api/hardware', hardwareRoutes({}))
    app.onError((error, c) => renderError(error, c, silentLogger))
    const res = await app.request('/api/hardware')
    expect(res.status).toBe(404)
    expect(await res.json()).toMatchObject({ error: { code: 'route.not_found' } })
  })
})
