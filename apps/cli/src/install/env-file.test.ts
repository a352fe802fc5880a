import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { envLine, mergeEnvFile, parseEnvFile } from './env-file'

describe('env files', () => {
  it('keeps the lines a user added and updates or removes only the managed keys, in place', () => {
    const existing = '# header\nSVC_PORT=8080\nOPENAI_API_KEY=sk-1\n# mine\nSVC_PROXY_SECRET=old\n'
    const merged = mergeEnvFile(
      existing,
      { SVC_PORT: '9090', SVC_PROXY_SECRET: undefined, SVC_AUTH_ENABLED: '0' },
      '# new\n',
    )
    expect(merged).toBe('# header\nSVC_PORT=9090\nOPENAI_API_KEY=sk-1\n# mine\nSVC_AUTH_ENABLED=0\n')
    expect(mergeEnvFile(undefined, { A: '1' }, '# new file\n')).toBe('# new file\nA=1\n')
    expect(mergeEnvFile('A=1\nA=2\n', { A: '3' }, '')).toBe('A=3\n')
  })

  it('quotes values so that systemd and sh read the same thing', () => {
    const value = `it's "quoted" $HOME \\ and spaces`
    const line = envLine('X', value)
    expect(parseEnvFile(line)).toEqual({ X: value })
    const sh = execFileSync('sh', ['-c', `${line}\nprintf %s "$X"`], { encoding: 'utf8' })
    expect(sh).toBe(value)
    expect(envLine('T', 'svc_abc.DEF-_x')).toBe('T=svc_abc.DEF-_x')
    expect(() => envLine('X', 'a\nb')).toThrow(/line breaks/)
    expect(() => envLine('1X', 'a')).toThrow(/not an environment variable name/)
  })
})
