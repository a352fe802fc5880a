/**
 * What a newcomer's typing mistakes get (issue 39, point 7): one line naming the mistake and the
 * nearest right word, a usage hint, exit 2, never a Node stack trace; `--url` reaches the API it
 * names; a near-miss model id gets "did you mean". The real `svc` against a real API.
 */
import { type ApiProcess, runSvc, startApi, testEnv } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const NOTHING = 'http://127.0.0.1:1'
const svc = (args: string[], env: Record<string, string> = {}) =>
  runSvc(args, { ...testEnv.inherited(), SVC_API_URL: NOTHING, ...env })

/** No stack frame ("    at run (…)") and no Node error code anywhere in what was printed. */
function noStack(r: { stdout: string; stderr: string }) {
  expect(`${r.stdout}${r.stderr}`).not.toMatch(/^\s+at /m)
  expect(r.stderr).not.toContain('ERR_PARSE_ARGS')
}

describe('typing mistakes', () => {
  it('a mistyped option is one line with the option it resembles, then the usage; exit 2', async () => {
    const r = await svc(['slot', 'load', 'primary', '--modle', 'qwen3-0.6b-q8_0'])
    expect(r.code).toBe(2)
    const [first, second, ...rest] = r.stderr.split('\n')
    expect(first).toBe('svc slot load: unknown option --modle (did you mean --model?)')
    expect(second).toMatch(/^usage: svc slot load <slot> \[--model <id>\]/)
    expect(rest.join('')).toBe('')
    noStack(r)
  }, 60_000)

  it('a missing value says which option needs one; exit 2', async () => {
    const r = await svc(['slot', 'load', 'primary', '--model'])
    expect(r.code).toBe(2)
    expect(r.stderr.split('\n')[0]).toBe('svc slot load: --model needs a value')
    noStack(r)
  }, 60_000)

  it('the same for the commands with their own parsers (token, install, models ls)', async () => {
    const [token, install, models] = await Promise.all([
      svc(['token', 'create', '--lable', 'ci']),
      svc(['install', '--dryrun']),
      svc(['models', 'ls', '--al']),
    ])
    expect(token.code).toBe(2)
    expect(token.stderr.split('\n')[0]).toBe(
      'svc token create: unknown option --lable (did you mean --label?)',
    )
    expect(install.code).toBe(2)
    expect(install.stderr.split('\n')[0]).toBe(
      'svc install: unknown option --dryrun (did you mean --dry-run?)',
    )
    expect(models.code).toBe(2)
    expect(models.stderr.split('\n')[0]).toBe('svc models ls: unknown option --al (did you mean --all?)')
    for (const r of [token, install, models]) noStack(r)
  }, 60_000)

  it('an unknown subcommand says "unknown command" with the nearest one; exit 2', async () => {
    const [r, top, far] = await Promise.all([svc(['slot', 'lss']), svc(['stauts']), svc(['frobnicate'])])
    expect(r.code).toBe(2)
    expect(r.stderr.split('\n')[0]).toBe('svc slot: unknown command "lss" (did you mean "ls"?)')
    expect(r.stdout).toBe('')
    expect(top.code).toBe(2)
    expect(top.stderr.split('\n')[0]).toBe('svc: unknown command "stauts" (did you mean "status"?)')
    expect(far.stderr.split('\n')[0]).toBe('svc: unknown command "frobnicate"')
  }, 60_000)
})

describe('--url and model ids, against a real API', () => {
  let api: ApiProcess
  beforeAll(async () => {
    api = await startApi({ timeoutMs: 90_000 })
  }, 120_000)
  afterAll(() => api?.[Symbol.asyncDispose]())

  it('--url is the API every command talks to, before or after the command, over SVC_API_URL', async () => {
    // SVC_API_URL points at nothing: only --url can reach the API.
    const [status, slots, bad] = await Promise.all([
      svc(['status', '--url', api.url]),
      svc(['--url', api.url, 'slot', 'ls']),
      svc(['status', '--url', 'localhost:8080']),
    ])
    expect(status.code, status.stderr).toBe(0)
    expect(status.stdout).toContain(`is up at ${api.url}`)
    expect(slots.code, slots.stderr).toBe(0)
    expect(slots.stdout).toMatch(/^SLOT\s+PROVIDER/)
    expect(slots.stdout).toMatch(/^primary\s+llm/m)
    expect(bad.code).toBe(2)
    expect(bad.stderr.split('\n')[0]).toBe('svc: --url must be an http(s) URL, got "localhost:8080"')
  }, 180_000)

  it('a near-miss model id gets the known id it resembles', async () => {
    const [r, rm] = await Promise.all([
      svc(['slot', 'load', 'primary', '--model', 'qwen3-0.6b-q8', '--url', api.url]),
      svc(['models', 'rm', 'nomic-embed-text-v1.5-q8', '--url', api.url]),
    ])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('no model "qwen3-0.6b-q8"; did you mean "qwen3-0.6b-q8_0"?')
    noStack(r)
    expect(rm.code).toBe(1)
    expect(rm.stderr).toContain('did you mean "nomic-embed-text-v1.5-q8_0"?')
  }, 180_000)
})
