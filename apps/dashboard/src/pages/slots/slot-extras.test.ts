import { describe, expect, it } from 'vitest'
import { sayError, stripCommand } from './error-words'
import { contextText, deviceName, extrasOf, runnableBackends, runsOn, seriesOf } from './slot-extras'
import { sparkBars } from './sparkline'

describe('runsOn', () => {
  it('says where a slot runs as a person says it, not provider · backend · runtime', () => {
    expect(runsOn({ provider: 'llm', backend: 'cpu', runtime: 'process' })).toBe('llama.cpp on CPU')
    expect(runsOn({ provider: 'image', backend: 'rocm', runtime: 'remote' })).toBe(
      'ComfyUI on a remote server',
    )
    expect(runsOn({ provider: 'tts', backend: 'cpu', runtime: 'container', model: 'kokoro-82m' })).toBe(
      'Kokoro on CPU, in a container',
    )
    expect(runsOn({ provider: 'stt', backend: null, runtime: null })).toBe('whisper.cpp')
    expect(runsOn({ provider: 'acme', backend: 'cuda', runtime: 'process' })).toBe(
      'acme on NVIDIA GPU (CUDA)',
    )
  })
})

describe('the contract fields', () => {
  it('reads them from the view before the live snapshot, and tolerates their absence', () => {
    expect(extrasOf({}, {})).toEqual({ serves: null, runnable: null, memory: null, context_size: null })
    const memory = { device: 'cpu', bytes: 5, estimated: false }
    expect(extrasOf({ memory, context_size: 8192 }, { memory: null, serves: ['chat'] })).toMatchObject({
      memory,
      context_size: 8192,
      serves: ['chat'],
    })
    expect(seriesOf({ requestsPerMin: 1 })).toBeNull()
    expect(seriesOf(null)).toBeNull()
  })

  it('offers only the backends the API says run here', () => {
    const runnable = {
      ok: true,
      reason: null,
      backends: [
        { backend: 'rocm', ok: false, reason: 'no ROCm GPU found' },
        { backend: 'cpu', ok: true, reason: null },
      ],
    }
    expect(runnableBackends(runnable)).toEqual(['cpu'])
    expect(runnableBackends(null)).toEqual([])
  })

  it('names devices and context sizes for people', () => {
    expect(deviceName('ram')).toBe('RAM')
    expect(deviceName('gpu0')).toBe('GPU 0 memory')
    expect(contextText(8192)).toBe('8,192 tokens')
  })
})

describe('error words', () => {
  it('never passes on a command, and offers the fix in the page', () => {
    const said = sayError(
      'model.not_loaded',
      'slot "embed" holds no model; load one with: svc slot load embed --model <id>',
    )
    expect(said.fix).toBe('load')
    expect(said.text).not.toMatch(/svc /)
    expect(stripCommand('slot "embed" holds no model; load one with: svc slot load embed --model <id>')).toBe(
      'slot "embed" holds no model',
    )
    expect(sayError(null, 'request (9000 tokens) exceeds the available context size (8192 tokens)').fix).toBe(
      'settings',
    )
    expect(sayError('context.too_long', 'too long').fix).toBe('settings')
    expect(sayError(null, 'llama-server exited with code 1')).toEqual({
      text: 'llama-server exited with code 1',
      fix: 'load',
    })
  })
})

describe('sparkBars', () => {
  it('draws a bar per positive bucket, to scale; nulls and zeros are gaps, not bars', () => {
    const bars = sparkBars([2, null, 0, 4], 40, 11)
    expect(bars.map((b) => [b.x, b.height])).toEqual([
      [1.5, 5],
      [31.5, 10],
    ])
    expect(bars.every((b) => b.y + b.height === 11)).toBe(true)
    expect(sparkBars([null, null], 30, 10)).toEqual([])
  })
})
