import { describe, expect, it } from 'vitest'
import { appendedLines } from './log-diff'

describe('appendedLines', () => {
  it('sends only the new lines while the ring grows', () => {
    expect(appendedLines(['a', 'b'], ['a', 'b', 'c', 'd'])).toEqual({ lines: ['c', 'd'], reset: false })
    expect(appendedLines(['a', 'b'], ['a', 'b'])).toEqual({ lines: [], reset: false })
    expect(appendedLines([], ['a'])).toEqual({ lines: ['a'], reset: false })
  })

  it('follows a full ring whose oldest lines fall off', () => {
    expect(appendedLines(['a', 'b', 'c'], ['b', 'c', 'd'])).toEqual({ lines: ['d'], reset: false })
  })

  it('keeps repeated lines apart (the longest overlap wins)', () => {
    expect(appendedLines(['x', 'x'], ['x', 'x', 'x'])).toEqual({ lines: ['x'], reset: false })
  })

  it('starts over when nothing overlaps (a new upstream, or a burst larger than the ring)', () => {
    expect(appendedLines(['a', 'b'], ['p', 'q'])).toEqual({ lines: ['p', 'q'], reset: true })
    expect(appendedLines(['a', 'partial li'], ['a', 'partial line', 'next'])).toEqual({
      lines: ['a', 'partial line', 'next'],
      reset: true,
    })
  })
})
