import { describe, expect, it } from 'vitest'
import { mean, paired, pairedText, quantile, roundOrder } from '../bench/stats'

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

  it('takes the nearest-rank quantile and the mean', () => {
    expect(quantile([5, 1, 4, 2, 3], 0.5)).toBe(3)
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2)
    expect(quantile([], 0.5)).toBeNaN()
    expect(mean([1, 2, 6])).toBe(3)
    expect(mean([])).toBeNaN()
  })
})
