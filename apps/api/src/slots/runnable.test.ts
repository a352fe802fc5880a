import { defaultSlotConfig, type SlotConfig } from '@svc/core'
import type { ProviderBackends } from '@svc/providers'
import { describe, expect, it } from 'vitest'
import { type OfferContext, servesOf, slotRunnable } from './runnable'

const slot = (name: string, over: Partial<SlotConfig> = {}): SlotConfig => ({
  ...defaultSlotConfig(name)!,
  ...over,
})

/** A cpu-only box: llm runs on cpu as a process; the image provider runs nowhere. */
const llm: ProviderBackends = {
  vulkan: { ok: false, reason: 'no GPU render node (/dev/dri/renderD*)' },
  cpu: { ok: true, runtimes: ['process'], unavailable: { container: 'no container engine answers' } },
}
const image: ProviderBackends = {
  rocm: { ok: false, reason: 'no /dev/kfd (AMD ROCm compute device)' },
  cpu: { ok: false, reason: 'nothing can run it here' },
}
const ctx: OfferContext = { providers: { llm, image }, installed: new Set(['llm', 'image', 'tts', 'stt']) }

describe('slotRunnable', () => {
  it('says an llm slot on cpu runs here, listing every backend with its verdict', () => {
    expect(slotRunnable(slot('primary', { backend: 'cpu', runtime: 'process' }), ctx)).toEqual({
      ok: true,
      reason: null,
      backends: [
        { backend: 'vulkan', ok: false, reason: 'no GPU render node (/dev/dri/renderD*)' },
        { backend: 'cpu', ok: true, reason: null },
      ],
    })
  })

  it('says why a slot whose file names a backend that is not here cannot run, and what does', () => {
    const r = slotRunnable(slot('primary', { backend: 'vulkan' }), ctx)
    expect(r.ok).toBe(false)
    expect(r.reason).toBe(
      "cannot use vulkan here: no GPU render node (/dev/dri/renderD*); cpu runs here (choose it in the slot's settings)",
    )
  })

  it('says no backend of the image provider runs here, each with its reason', () => {
    const r = slotRunnable(slot('img'), ctx)
    expect(r.ok).toBe(false)
    expect(r.reason).toMatch(
      /^no backend runs here \(rocm: no \/dev\/kfd .*; cpu: nothing can run it here\)$/,
    )
  })

  it('refuses a runtime the backend cannot use here', () => {
    const r = slotRunnable(slot('primary', { backend: 'cpu', runtime: 'container' }), ctx)
    expect(r).toMatchObject({
      ok: false,
      reason: 'cannot run cpu as a container here: no container engine answers',
    })
  })

  it('never second-guesses a remote slot or a kind the picker does not decide for', () => {
    expect(slotRunnable(slot('img', { runtime: 'remote', url: 'http://10.0.0.5:8188' }), ctx).ok).toBe(true)
    expect(slotRunnable(slot('tts'), ctx)).toEqual({ ok: true, reason: null, backends: [] })
  })

  it('says a slot of a provider that is not installed cannot run', () => {
    expect(slotRunnable(slot('primary', { name: 'x', provider: 'echo', role: undefined }), ctx)).toEqual({
      ok: false,
      reason: 'no provider "echo" is installed',
      backends: [],
    })
  })
})

describe('servesOf', () => {
  it('names what a slot answers: an llm slot by its role, others by their endpoints', () => {
    expect(servesOf(slot('primary'), undefined)).toEqual(['chat'])
    expect(servesOf(slot('embed'), undefined)).toEqual(['embeddings'])
    expect(servesOf(slot('primary', { name: 'x', role: 'rerank' }), undefined)).toEqual(['rerank'])
    expect(servesOf(slot('stt'), ['transcriptions', 'translations'])).toEqual(['transcription'])
    expect(servesOf(slot('tts'), ['speech'])).toEqual(['speech'])
    expect(servesOf(slot('img'), ['images'])).toEqual(['images'])
    expect(
      servesOf(slot('primary', { name: 'x', provider: 'echo', role: undefined }), [
        'chat',
        'completions',
        'embeddings',
      ]),
    ).toEqual(['chat', 'embeddings'])
  })
})
