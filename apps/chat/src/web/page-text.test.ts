import { describe, expect, it } from 'vitest'
import { isContextError, megabytes, pageText } from './page-text'

describe('what the page shows of a server message', () => {
  it('keeps a message without a command as it is', () => {
    expect(pageText('the image service answered without an image')).toBe(
      'the image service answered without an image',
    )
  })

  it('cuts the clause that names a command, and the backticks', () => {
    expect(pageText('slot "primary" holds no model; load one with: svc slot load primary --model <id>')).toBe(
      'slot "primary" holds no model.',
    )
    expect(
      pageText(
        'qwen is not loaded (offline). Load it in the dashboard or with `svc slot load primary --model …`.',
      ),
    ).toBe('qwen is not loaded (offline).')
    expect(pageText('`svc slot load x`')).toBe('svc could not do this.')
  })

  it('knows a context overflow by its code, or by the words of an older API', () => {
    expect(isContextError('context.too_long', '')).toBe(true)
    expect(isContextError('upstream.error', 'the request exceeds the available context size')).toBe(true)
    expect(isContextError('model.not_loaded', 'slot holds no model')).toBe(false)
  })

  it('writes sizes in MB as people read them', () => {
    expect(megabytes(1_800_000)).toBe('1.8 MB')
    expect(megabytes(1_000_000)).toBe('1 MB')
    expect(megabytes(12_345_678)).toBe('12 MB')
    expect(megabytes(10)).toBe('0.1 MB')
  })
})
