/**
 * docs/chat.md's settings table is the chat server's table of variables (src/server/env-variables.ts):
 * the same names, defaults and meanings, in the same order. On a difference the message holds the
 * table as the code declares it, to paste into the docs.
 */
import { readFileSync } from 'node:fs'
import { checkEnvDoc } from '@svc/testing'
import { describe, expect, it } from 'vitest'
import { CHAT_ENV_VARIABLES } from '../src/server/env-variables'

const DOC = readFileSync(new URL('../../../docs/chat.md', import.meta.url), 'utf8')
const check = checkEnvDoc(CHAT_ENV_VARIABLES, DOC, '## Settings')

describe('docs/chat.md', () => {
  it('documents every variable the chat server reads, with the default and meaning the code declares', () => {
    expect(check.documented, check.hint).toEqual(check.expected)
  })

  it('documents no variable the chat server does not read', () => {
    expect(check.undeclared).toEqual([])
  })
})
