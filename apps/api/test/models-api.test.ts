import type { HardwareFacts } from '@svc/providers'
import { describe, expect, it } from 'vitest'
import { offer } from '../src/routes/models-api'
import { testApp } from './helpers'

const machine = (totalGb: number) => ({ memory: { totalGb } }) as HardwareFacts

describe('GET /api/models', () => {
  it('lists the whole catalogue with whether each model is on disk and offered here', async () => {
    const { app } = await testApp()
    const body = (await (await app.request('/api/models')).json()) as { models: Record<string, unknown>[] }
    const ids = body.models.map((m) => m.id)
    expect(ids).toEqual(
      expect.arrayContaining([
        'qwen3-0.6b-q8_0',
        'nomic-embed-text-v1.5-q8_0',
        'sdxl-turbo',
        'sd-1.5-pruned-emaonly',
        'flux-schnell',
      ]),
    )
    expect(body.models.find((m) => m.id === 'sdxl-turbo')).toMatchObject({
      provider: 'image',
      present: false,
      needs_pull: true,
      slot: null,
      min_vram_gb: 8,
      license_url: expect.stringMatching(/^https:\/\//),
      offered: true,
    })
  })

  it('says that models without a file need no pull', async () => {
    const { app } = await testApp()
    const body = (await (await app.request('/api/models')).json()) as { models: Record<string, unknown>[] }
    expect(body.models.find((m) => m.id === 'espeak-ng')).toMatchObject({ present: false, needs_pull: false })
  })

  it('offers flux-schnell only on machines with at least 24 GB, and image models only with a workflow', () => {
    const flux = {
      id: 'flux-schnell',
      format: 'checkpoint',
      provider: 'image',
      source: 'catalogue',
      minVramGb: 24,
      workflow: 'flux-schnell',
    } as const
    expect(offer(flux, machine(16))).toEqual({
      offered: false,
      reason: 'model "flux-schnell" needs at least 24 GB of memory; this machine has 16 GB',
    })
    expect(offer(flux, machine(128))).toEqual({ offered: true, reason: null })
    const { workflow: _none, ...noWorkflow } = flux
    expect(offer(noWorkflow, machine(128))).toEqual({
      offered: false,
      reason: 'no workflow template for it yet',
    })
  })
})
