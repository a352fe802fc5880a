import { describe, expect, it } from 'vitest'
import { formatBytes, formatDuration, formatPercent } from './format'
import { createTransferRate } from './transfer-rate'

describe('formatting', () => {
  it('shows bytes in decimal units', () => {
    expect(formatBytes(0)).toBe('0 B')
    expect(formatBytes(999)).toBe('999 B')
    expect(formatBytes(1536000)).toBe('1.5 MB')
    expect(formatBytes(639_000_000)).toBe('639 MB')
    expect(formatBytes(-1)).toBe('—')
  })
  it('shows durations a person reads at a glance', () => {
    expect(formatDuration(9)).toBe('9 s')
    expect(formatDuration(75)).toBe('1 min 15 s')
    expect(formatDuration(3725)).toBe('1 h 2 min')
    expect(formatDuration(Number.NaN)).toBe('—')
  })
  it('floors percentages so 100% means done', () => {
    expect(formatPercent(0.999)).toBe('99%')
    expect(formatPercent(1)).toBe('100%')
  })
})

describe('transfer rate', () => {
  it('smooths the speed and estimates the time left', () => {
    const rate = createTransferRate(0.5)
    expect(rate.sample(0, 0)).toBeNull()
    expect(rate.sample(1000, 1000)).toBe(1000)
    expect(rate.sample(4000, 2000)).toBe(2000) // 1000 + 0.5 × (3000 − 1000)
    expect(rate.eta(4000, 10_000)).toBe(3)
    expect(rate.eta(4000, null)).toBeNull()
  })
  it('starts over when a transfer restarts', () => {
    const rate = createTransferRate()
    rate.sample(5000, 0)
    rate.sample(6000, 1000)
    expect(rate.sample(10, 2000)).toBeNull()
  })
})
