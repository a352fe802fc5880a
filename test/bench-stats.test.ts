import { describe, expect, it } from 'vitest'
import type { Peer } from '../bench/peers'
import { inTurn, measureInRounds } from '../bench/replicas'
import { paired, pairedText, roundOrder } from '../bench/stats'

// The bench's verdicts rest on these: a goal is the median of per-round ratios of runs made back to back.
describe('bench statistics', () => {
  it('pairs rounds: the median of the per-round ratios, not the ratio of the medians', () => {
    // Three rounds at 0.9× and two at 1.5×, while the machine's speed drifts 3× between rounds: the
    // ratio of the two medians would read 150 / 100 = 1.5×.
    const a = [90, 180, 270, 150, 150]
    const b = [100, 200, 300, 100, 100]
    expect(paired(a, b).value).toBeCloseTo(0.9)
    expect(pairedText(paired(a, b))).toBe('0.90× (rounds 0.90–1.50)')
  })

  it('takes the mean of the two middle rounds when their count is even, not the lower one', () => {
    expect(paired([90, 110, 100, 120], [100, 100, 100, 100]).value).toBeCloseTo(1.05)
    expect(paired([], []).value).toBeNaN()
  })

  it('pairs differences (added latency) and skips rounds with a missing figure', () => {
    const p = paired([0.3, Number.NaN, 0.25], [0.1, 0.1, 0.1], true)
    expect(p.rounds.map((x) => x.toFixed(2))).toEqual(['0.20', '0.15'])
    expect(paired([1, 2], [0, 0]).rounds).toEqual([])
    expect(pairedText(paired([], []))).toBe('n/a')
  })

  it('orders peers forward in odd rounds and backward in even ones, so neighbours stay neighbours', () => {
    expect(roundOrder(['a', 'b', 'c'], 1)).toEqual(['a', 'b', 'c'])
    expect(roundOrder(['a', 'b', 'c'], 2)).toEqual(['c', 'b', 'a'])
  })

  it('takes the processes of one configuration in turn', () => {
    const group = [
      { name: 'x', url: 'u1' },
      { name: 'x', url: 'u2' },
    ] as Peer[]
    expect([1, 2, 3, 4].map((r) => inTurn(group, r).url)).toEqual(['u1', 'u2', 'u1', 'u2'])
  })

  it('measures groups in alternating order, each through its processes in turn', async () => {
    const seen: string[] = []
    const a = [
      { name: 'a', url: 'a1' },
      { name: 'a', url: 'a2' },
    ] as Peer[]
    const b = [{ name: 'b', url: 'b1' }] as Peer[]
    const results = await measureInRounds(
      [a, b],
      3,
      async (p) => {
        seen.push(p.url)
        return p.url.length
      },
      undefined,
      // Each measured run right after its own process was brought back from idling.
      async (p) => seen.push(`settle ${p.url}`),
    )
    expect(seen).toEqual(['a1', 'b1', 'b1', 'a2', 'a1', 'b1'].flatMap((url) => [`settle ${url}`, url]))
    expect(results.get('a')).toEqual([2, 2, 2])
    expect(results.get('b')).toHaveLength(3)
  })

  it('runs burn-in rounds in the measured rounds\u2019 order and drops their results', async () => {
    const seen: string[] = []
    const after: number[] = []
    const a = [{ name: 'a', url: 'a1' }] as Peer[]
    const b = [{ name: 'b', url: 'b1' }] as Peer[]
    const results = await measureInRounds(
      [a, b],
      2,
      async (p) => {
        seen.push(p.url)
        return seen.length
      },
      (round) => after.push(round),
      async () => undefined,
      2,
    )
    expect(seen).toEqual(['a1', 'b1', 'b1', 'a1', 'a1', 'b1', 'b1', 'a1'])
    expect(results.get('a')).toEqual([5, 8])
    expect(results.get('b')).toEqual([6, 7])
    expect(after).toEqual([1, 1, 2, 2])
  })
})
