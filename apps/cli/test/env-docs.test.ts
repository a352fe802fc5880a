/**
 * docs/configuration.md's CLI table is the CLI's table of variables (src/env-variables.ts): the same
 * names, defaults and meanings, in the same order. On a difference the message holds the table as the
 * code declares it, to paste into the docs.
 */
import { readFileSync } from 'node:fs'
import { checkEnvDoc } from '@svc/testing'
import { describe, expect, it } from 'vitest'
import { CLI_ENV_VARIABLES } from '../src/env-variables'

const DOC = readFileSync(new URL('../../../docs/configuration.md', import.meta.url), 'utf8')
const check = checkEnvDoc(CLI_ENV_VARIABLES, DOC, '### The CLI')

describe('docs/configuration.md', () => {
  it('documents every variable the CLI reads, with the default and meaning the code declares', () => {
    expect(check.documented, check.hint).toEqual(check.expected)
  })

  it('documents no variable the CLI does not read', () => {
    expect(check.undeclared).toEqual([])
  })
})
