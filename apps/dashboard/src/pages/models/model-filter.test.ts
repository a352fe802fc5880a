import { describe, expect, it } from 'vitest'
import { type FilterableModel, filterModels, providersOf } from './model-filter'

const row = (id: string, provider: string, more: Partial<FilterableModel> = {}): FilterableModel => ({
  id,
  provider,
  role: null,
  badge: null,
  family: null,
  offered: true,
  present: false,
  slot: null,
  ...more,
})

const models = [
  row('qwen3-0.6b-q8_0', 'llm', { role: 'chat' }),
  row('flm-qwen3-0.6b', 'npu', { offered: false }),
  row('flm-llama3.2-1b', 'npu', { offered: false }),
  row('flux-schnell', 'image', { offered: false }),
  row('old-pull', 'npu', { offered: false, present: true }),
  row('held', 'image', { offered: false, slot: 'img' }),
]
const ids = (r: { rows: FilterableModel[] }) => r.rows.map((m) => m.id)

describe('filterModels', () => {
  it('lists what this machine runs, plus anything on disk or held, and counts what it hides', () => {
    const r = filterModels(models, { query: '', provider: '', showAll: false })
    expect(ids(r)).toEqual(['qwen3-0.6b-q8_0', 'old-pull', 'held'])
    expect(r.notOffered).toBe(3)
    const all = filterModels(models, { query: '', provider: '', showAll: true })
    expect([all.rows.length, all.notOffered]).toEqual([6, 3])
  })

  it('keeps a model being pulled in view', () => {
    const r = filterModels(models, {
      query: '',
      provider: '',
      showAll: false,
      pulling: new Set(['flux-schnell']),
    })
    expect(ids(r)).toContain('flux-schnell')
    expect(r.notOffered).toBe(2)
  })

  it('searches and filters by provider before counting the hidden ones', () => {
    const r = filterModels(models, { query: 'QWEN', provider: '', showAll: false })
    expect([ids(r), r.notOffered]).toEqual([['qwen3-0.6b-q8_0'], 1])
    const npu = filterModels(models, { query: '', provider: 'npu', showAll: false })
    expect([ids(npu), npu.notOffered]).toEqual([['old-pull'], 2])
    expect(ids(filterModels(models, { query: 'chat', provider: '', showAll: false }))).toEqual([
      'qwen3-0.6b-q8_0',
    ])
  })
})

describe('providersOf', () => {
  it('lists each provider once, those offered here first', () => {
    expect(providersOf(models)).toEqual(['llm', 'image', 'npu'])
  })
})
