import type { HardwareFacts } from '@svc/providers'
import { offer } from '@svc/providers'
import { describe, expect, it } from 'vitest'
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
    expect(offer(flux, { facts: machine(16) })).toEqual({
      offered: false,
      reason: 'model "flux-schnell" needs at least 24 GB of memory; this machine has 16 GB',
    })
    expect(offer(flux, { facts: machine(128) })).toEqual({ offered: true, reason: null })
    const { workflow: _none, ...noWorkflow } = flux
    expect(offer(noWorkflow, { facts: machine(128) })).toEqual({
      offered: false,
      reason: 'no workflow template for it yet',
    })
  })

  it('offers a model only where its provider has a backend here, or a remote slot serves it', () => {
    const npuModel = { id: 'flm-qwen3-0.6b', format: 'npu', provider: 'npu', source: 'catalogue' } as const
    const noNpu = {
      npu: { npu: { ok: false as const, reason: 'no /dev/accel/accel0 (AMD XDNA NPU)' } },
      image: {
        rocm: { ok: false as const, reason: 'no /dev/kfd (AMD ROCm compute device)' },
        cpu: { ok: false as const, reason: 'no container image for image/cpu' },
      },
      llm: { cpu: { ok: true as const, runtimes: ['process' as const] } },
    }
    const installed = new Set(['llm', 'npu', 'image', 'tts'])
    expect(offer(npuModel, { providers: noNpu, installed })).toEqual({
      offered: false,
      reason: 'npu: no /dev/accel/accel0 (AMD XDNA NPU)',
    })
    const sdxl = { ...npuModel, id: 'sdxl-turbo', provider: 'image', workflow: 'sdxl-turbo' } as const
    expect(offer(sdxl, { providers: noNpu, installed }).reason).toBe(
      'no backend runs here (rocm: no /dev/kfd (AMD ROCm compute device); cpu: no container image for image/cpu)',
    )
    // a remote ComfyUI serves image models whatever this machine has
    expect(offer(sdxl, { providers: noNpu, installed, remote: new Set(['image']) }).offered).toBe(true)
    const llm = { ...npuModel, id: 'qwen', provider: 'llm' } as const
    expect(offer(llm, { providers: noNpu, installed }).offered).toBe(true)
    // the picker does not decide for tts (espeak-ng runs on any host); a missing provider is said
    const tts = { ...npuModel, id: 'espeak-ng', provider: 'tts' } as const
    expect(offer(tts, { providers: noNpu, installed }).offered).toBe(true)
    expect(offer({ ...npuModel, provider: 'vllm' }, { installed })).toEqual({
      offered: false,
      reason: 'no provider "vllm" is installed',
    })
  })

  it('offers a model only when some slot runs its provider; the machine’s own reason comes first', async () => {
    const npuModel = { id: 'flm-qwen3-0.6b', format: 'npu', provider: 'npu', source: 'catalogue' } as const
    const hasNpu = { npu: { npu: { ok: true as const, runtimes: ['process' as const] } } }
    const slotProviders = new Set(['llm', 'stt', 'tts', 'image'])
    expect(offer(npuModel, { providers: hasNpu, slotProviders })).toEqual({
      offered: false,
      reason: 'no slot runs provider "npu" (add one with provider = "npu")',
    })
    expect(offer(npuModel, { providers: hasNpu, slotProviders: new Set(['npu']) }).offered).toBe(true)
    const noNpu = { npu: { npu: { ok: false as const, reason: 'no /dev/accel/accel0 (AMD XDNA NPU)' } } }
    expect(offer(npuModel, { providers: noNpu, slotProviders }).reason).toBe(
      'npu: no /dev/accel/accel0 (AMD XDNA NPU)',
    )

    // The server's own slots decide (no picker here, so nothing else stands in the way): the
    // built-in ones run llm, stt, tts and image, none runs npu, until a slot is added that does.
    const { app } = await testApp()
    const npuRows = async () =>
      (
        (await (await app.request('/api/models')).json()) as {
          models: { id: string; provider: string; offered: boolean; reason: string | null }[]
        }
      ).models.filter((m) => m.provider === 'npu')
    const before = await npuRows()
    expect(before.length).toBeGreaterThan(0)
    expect(new Set(before.map((m) => `${m.offered} ${m.reason}`))).toEqual(
      new Set(['false no slot runs provider "npu" (add one with provider = "npu")']),
    )
    const created = await app.request('/api/slots', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'npu-chat', provider: 'npu' }),
    })
    expect(created.status, await created.text()).toBe(201)
    expect((await npuRows()).every((m) => m.offered && m.reason === null)).toBe(true)
  })
})
