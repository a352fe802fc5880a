/**
 * ComfyUI's `output/svc/` must not grow forever. With ComfyUI's output volume in
 * svc's state dir (as the comfyui-rocm container has it), each request's files are removed once cached.
 */
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { type ComfyStandIn, startComfyStandIn } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type AuthServer, send, startAuthServer } from './auth-harness'

describe('ComfyUI output files', () => {
  let server: AuthServer
  let comfy: ComfyStandIn | undefined
  beforeAll(async () => {
    server = await startAuthServer({ SVC_AUTH_ENABLED: '0' }, async ({ stateDir }) => {
      comfy = await startComfyStandIn({
        checkpoints: ['sdxl-turbo/sd_xl_turbo_1.0_fp16.safetensors'],
        baseDir: join(stateDir, 'volumes', 'comfyui'),
      })
    })
    const put = await send(server.url, {
      method: 'PUT',
      path: '/api/slots/img',
      body: JSON.stringify({ runtime: 'remote', url: comfy!.url }),
    })
    expect(put.status).toBe(200)
    const load = await send(server.url, {
      method: 'POST',
      path: '/api/slots/img/load?wait=true',
      body: JSON.stringify({ model: 'sdxl-turbo' }),
    })
    expect(load.status, load.text).toBe(200)
  }, 60_000)
  afterAll(async () => {
    await comfy?.close()
    await server?.[Symbol.asyncDispose]()
  })

  it('are gone from output/svc once the images are in svc cache', async () => {
    for (let i = 0; i < 3; i++) {
      const reply = await send(server.url, {
        method: 'POST',
        path: '/v1/images/generations',
        body: JSON.stringify({ model: 'sdxl-turbo', prompt: `cat ${i}`, size: '64x64', n: 2 }),
      })
      expect(reply.status, reply.text).toBe(200)
    }
    expect(comfy!.outputDir).toBe(join(server.stateDir, 'volumes', 'comfyui', 'output'))
    expect(await readdir(join(comfy!.outputDir, 'svc')).catch(() => [])).toEqual([])
    expect(await readdir(join(server.stateDir, 'images', 'cache'))).toHaveLength(6)
  })
})
