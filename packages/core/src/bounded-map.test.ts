import { describe, expect, it } from 'vitest'
import { remember } from './bounded-map'

describe('remember', () => {
  it('keeps a value and hands it back, and empties the map when it is full', () => {
    const map = new Map<string, number>()
    expect(remember(map, 'a', 1, 2)).toBe(1)
    remember(map, 'b', 2, 2)
    expect([...map.keys()]).toEqual(['a', 'b'])
    remember(map, 'c', 3, 2) // full: the older ones go, the new one stays
    expect([...map.entries()]).toEqual([['c', 3]])
  })
})
