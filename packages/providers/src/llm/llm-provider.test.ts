import { describe, expect, it } from 'vitest'
import { hostSlotContext } from '../../test/slot-context'
import { createLlmProvider, llamaServerArgs } from './llm-provider'

const base = hostSlotContext(
  { id: 'qwen3-0.6b-q8_0', format: 'gguf', provider: 'llm', source: 'catalogue' },
  { slot: 'primary', modelPath: '/m/q.gguf', backend: 'vulkan' },
)

describe('llama-server argv', () => {
  it('always binds host and port, sets the alias and metrics', () => {
    expect(llamaServerArgs(base).slice(0, 9)).toEqual([
      '-m',
      '/m/q.gguf',
      '--host',
      '127.0.0.1',
      '--port',
      '4321',
      '--alias',
      'qwen3-0.6b-q8_0',
      '--metrics',
    ])
  })

  it('passes the vision projector only when the model has one on disk', () => {
    expect(llamaServerArgs(base)).not.toContain('--mmproj')
    const argv = llamaServerArgs({ ...base, mmprojPath: '/m/mmproj.gguf' })
    expect(argv.slice(argv.indexOf('--mmproj'), argv.indexOf('--mmproj') + 2)).toEqual([
      '--mmproj',
      '/m/mmproj.gguf',
    ])
  })

  it.each([
    ['chat', ['--jinja']],
    ['embed', ['--embeddings', '--pooling', 'mean']],
    ['rerank', ['--reranking']],
  ] as const)('adds the %s role flags', (role, flags) => {
    const argv = llamaServerArgs({ ...base, role })
    expect(argv.join(' ')).toContain(flags.join(' '))
  })

  it.each([
    ['vulkan', '999'],
    ['rocm', '999'],
    ['cuda', '999'],
    ['cpu', '0'],
  ] as const)('offloads layers per backend (%s → -ngl %s)', (backend, ngl) => {
    const argv = llamaServerArgs({ ...base, backend })
    expect(argv[argv.indexOf('-ngl') + 1]).toBe(ngl)
  })

  it('lets a flag in the slot args replace the default', () => {
    const argv = llamaServerArgs({ ...base, role: 'embed', args: ['--pooling', 'cls', '-ngl', '20'] })
    expect(argv.filter((a) => a === '--pooling')).toHaveLength(1)
    expect(argv.slice(-4)).toEqual(['--pooling', 'cls', '-ngl', '20'])
    expect(argv.filter((a) => a === '-ngl')).toHaveLength(1)
  })

  it("gives a preset's ctx_size last, so it wins over the slot's -c; the slot's ctx_size otherwise", () => {
    expect(llamaServerArgs({ ...base, ctxSize: 2048 }).join(' ')).toContain('-c 2048')
    const model = { ...base.model, engine: { ref: base.model.id, args: ['-fa', 'on'], ctxSize: 8192 } }
    const argv = llamaServerArgs({ ...base, model, ctxSize: 8192, args: ['-c', '256', '-fa', 'on'] })
    expect(argv.slice(-6)).toEqual(['-c', '256', '-fa', 'on', '-c', '8192'])
    expect(argv.filter((a) => a === '-c')).toHaveLength(2)
  })

  it('names llama-server as the program and maps endpoints to its paths', () => {
    const p = createLlmProvider()
    expect(p.startCommand(base)[0]).toBe('llama-server')
    expect(p.requestPath('rerank')).toBe('/v1/rerank')
    expect(() => p.requestPath('images')).toThrow()
    expect(p.refuseModel?.({ id: 'x', format: 'npu', provider: 'npu', source: 'catalogue' })).toMatch(/GGUF/)
  })
})
