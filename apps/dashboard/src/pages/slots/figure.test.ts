import { describe, expect, it } from 'vitest'
import { figure } from './figure'

describe('figure', () => {
  it('shows a measured value with its unit', () => {
    expect(figure(412, ' ms')).toBe('412 ms')
    expect(figure(38.5)).toBe('38.5')
  })

  it('shows "—" for a figure never measured, never "0" or "NaN"', () => {
    expect(figure(null)).toBe('—')
    expect(figure(undefined, ' ms')).toBe('—')
    expect(figure(Number.NaN)).toBe('—')
    expect(figure(Number.POSITIVE_INFINITY)).toBe('—')
  })
})
