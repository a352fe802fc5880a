import { describe, expect, it } from 'vitest'
import { can, type Session, whyNot } from './session'

const as = (scope: Session['scope']): Session => ({ authEnabled: true, scope, via: 'token', who: 't' })

describe('what a scope may do in the dashboard', () => {
  it('follows the scope table', () => {
    const table = (['admin', 'all', 'v1-only', 'read-only'] as const).map((scope) =>
      (['read', 'infer', 'mutate', 'tokens'] as const).map((a) => (can(as(scope), a) ? 1 : 0)).join(''),
    )
    expect(table).toEqual(['1111', '1100', '0100', '1000'])
  })

  it('says why a control is disabled, naming the scope that would do', () => {
    expect(whyNot(as('read-only'), 'mutate')).toBe(
      'Your read-only token does not allow changing slots and models: that needs an admin token.',
    )
    expect(whyNot(as('read-only'), 'infer')).toBe(
      'Your read-only token does not allow running models: that needs an admin or all or v1-only token.',
    )
    expect(whyNot(as('admin'), 'tokens')).toBeUndefined()
  })
})
