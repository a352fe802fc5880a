/** `svc serve` (what svc-api.service runs): the API in the foreground, stopped cleanly by SIGTERM. */
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SVC } from './install-harness'

describe('svc serve', () => {
  it('runs the API with the environment it is given and exits 0 on SIGTERM, API process included', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-serve-'))
    const child = spawn(process.execPath, [SVC, 'serve'], {
      env: {
        PATH: process.env.PATH,
        HOME: dir,
        SVC_HOST: '127.0.0.1',
        SVC_PORT: '0',
        SVC_CONFIG_DIR: join(dir, 'config'),
        SVC_STATE_DIR: join(dir, 'state'),
        SVC_AUTH_ENABLED: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    child.stderr.on('data', (d: Buffer) => (out += d.toString()))
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no listening line:\n${out}`)), 30_000)
        child.stderr.on('data', () => {
          const m = /"msg":"svc listening","url":"(http:\/\/[^"]+)"/.exec(out)
          if (m?.[1]) {
            clearTimeout(timer)
            resolve(m[1])
          }
        })
      })
      const status = (await (await fetch(`${url}/api/status`)).json()) as { auth: string }
      expect(status.auth).toBe('on') // SVC_AUTH_ENABLED from the environment reached the API
      child.kill('SIGTERM')
      expect(await exited).toBe(0)
      expect(out).toContain('"msg":"stopped"')
      await expect(fetch(`${url}/api/status`)).rejects.toThrow()
    } finally {
      child.kill('SIGKILL')
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('takes no arguments', async () => {
    const child = spawn(process.execPath, [SVC, 'serve', '--port', '1'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let err = ''
    child.stderr.on('data', (d: Buffer) => (err += d.toString()))
    expect(await new Promise((resolve) => child.once('exit', resolve))).toBe(2)
    expect(err).toContain('svc serve takes no arguments')
  })
})
