import { describe, expect, it } from 'vitest'
import { LOG_LINE_MAX, LogRing } from './runtime'

describe('LogRing', () => {
  it('keeps lines and the line still being written', () => {
    const ring = new LogRing(3)
    ring.push('a\nb')
    ring.push('c\nd\ne\nf')
    expect(ring.snapshot()).toEqual(['bc', 'd', 'e', 'f'])
  })

  it('caps a line that never ends, however much of it arrives', () => {
    const ring = new LogRing()
    const chunk = 'x'.repeat(64 * 1024)
    const t0 = performance.now()
    for (let i = 0; i < 1_000; i++) ring.push(chunk) // 64 MB without a newline
    const ms = performance.now() - t0
    const [line] = ring.snapshot()
    expect(line).toHaveLength(LOG_LINE_MAX + 1)
    expect(line?.endsWith('…')).toBe(true)
    // Re-splitting the whole partial line on every chunk made this quadratic (minutes, GBs).
    expect(ms).toBeLessThan(2_000)
    ring.push('\nnext')
    expect(ring.snapshot()).toEqual([`${'x'.repeat(LOG_LINE_MAX)}…`, 'next'])
  })
})
