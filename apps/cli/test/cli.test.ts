import { runSvc, startApi } from '@svc/testing'
import { describe, expect, it } from 'vitest'

const svc = (args: string[], env: Record<string, string> = {}) => runSvc(args, { ...process.env, ...env })

describe('svc CLI', () => {
  it('prints help listing its commands', async () => {
    const r = await svc(['--help'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/Usage: svc <command>/)
    expect(r.stdout).toMatch(/status\s+show whether the svc API is up/)
  })

  it('rejects an unknown command with exit code 2', async () => {
    const r = await svc(['frobnicate'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('unknown command "frobnicate"')
  })

  it('svc status reports a running API', async () => {
    await using api = await startApi()
    const r = await svc(['status'], { SVC_API_URL: api.url })
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^svc \d+\.\d+\.\d+ is up at http:\/\/127\.0\.0\.1:\d+ \(auth off\)/)
  })

  it('stops at start, naming the variable, when its environment has a wrong value', async () => {
    const r = await svc(['status'], { SVC_API_URL: 'localhost:8080' })
    expect(r.code).toBe(2)
    expect(r.stderr).toBe('svc: SVC_API_URL must be an http(s) URL, got "localhost:8080"\n')
    const start = await svc(['start'], { SVC_START_CHAT: 'maybe' })
    expect(start.code).toBe(2)
    expect(start.stderr).toContain('SVC_START_CHAT must be 1/true/yes/on or 0/false/no/off, got "maybe"')
  })

  it('still shows help when a variable is wrong (help is where people look for the right value)', async () => {
    for (const args of [['--help'], ['slot', 'load', '--help'], ['help']]) {
      const r = await svc(args, { SVC_API_URL: 'localhost:8080', SVC_START_CHAT: 'maybe' })
      expect(r.code, `svc ${args.join(' ')}`).toBe(0)
      expect(r.stdout).toMatch(/^Usage: svc /)
    }
  })

  it('svc status says where it looked when nothing answers', async () => {
    const r = await svc(['status'], { SVC_API_URL: 'http://127.0.0.1:1' })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('cannot reach the svc API at http://127.0.0.1:1')
  })

  it('warns before sending SVC_TOKEN in clear text to an address that is not loopback', async () => {
    await using api = await startApi()
    const port = new URL(api.url).port
    // 0.0.0.0 reaches this host, but says nothing about where a token may travel: it is not loopback.
    const far = await svc(['status'], { SVC_API_URL: `http://0.0.0.0:${port}`, SVC_TOKEN: 'svc_x.y' })
    expect(far.code).toBe(0)
    expect(far.stderr).toMatch(/warning: .*SVC_TOKEN.*not https.*not loopback|warning: .*clear text/i)
    expect(far.stderr).toContain(`http://0.0.0.0:${port}`)
    const near = await svc(['status'], { SVC_API_URL: api.url, SVC_TOKEN: 'svc_x.y' })
    expect(near.code).toBe(0)
    expect(near.stderr).not.toMatch(/warning/i)
    const tokenless = await svc(['status'], { SVC_API_URL: `http://0.0.0.0:${port}` })
    expect(tokenless.stderr).not.toMatch(/warning/i)
  })
})
