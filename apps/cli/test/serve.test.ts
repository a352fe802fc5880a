/** `svc serve` (what svc-api.service runs): the API in the foreground, stopped cleanly by SIGTERM. */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LISTENING, loopbackEnv, SVC_CLI, spawnWatched } from '@svc/testing'
import { describe, expect, it } from 'vitest'
import { startCliService } from './cli-service'

describe('svc serve', () => {
  it('runs the API with the environment it is given and exits 0 on SIGTERM, API process included', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-serve-'))
    await using serve = await startCliService({
      subcommand: 'serve',
      env: { HOME: dir, ...loopbackEnv(dir), SVC_AUTH_ENABLED: '1' },
      ready: LISTENING.api,
      timeoutMs: 30_000,
      cleanup: () => rm(dir, { recursive: true, force: true }),
    })
    const status = (await (await fetch(`${serve.url}/api/status`)).json()) as { auth: string }
    expect(status.auth).toBe('on') // SVC_AUTH_ENABLED from the environment reached the API
    expect(await serve.stop()).toBe(0)
    expect(serve.output()).toContain('"msg":"stopped"')
    await expect(fetch(`${serve.url}/api/status`)).rejects.toThrow()
  })

  it('takes no arguments', async () => {
    const serve = spawnWatched(process.execPath, [SVC_CLI, 'serve', '--port', '1'])
    expect((await serve.exited).code).toBe(2)
    expect(serve.output()).toContain('svc serve takes no arguments')
  })
})
