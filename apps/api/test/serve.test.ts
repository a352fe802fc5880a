import { startApi } from '@svc/testing'
import { describe, expect, it } from 'vitest'

describe('serve.ts', () => {
  it('listens, answers every open endpoint, and exits 0 on SIGTERM', async () => {
    await using api = await startApi()
    for (const path of [
      '/api/health/system',
      '/api/status',
      '/api/features',
      '/api/install/state',
      '/api/config/urls',
      '/api/auth/status',
      '/api/auth/login',
      '/v1/models',
      '/api/metrics',
    ]) {
      const res = await fetch(api.url + path)
      expect(res.status, path).toBe(200)
    }
    const metrics = await (await fetch(`${api.url}/api/metrics`)).text()
    expect(metrics).toContain('process_cpu_user_seconds_total')
    expect(await api.stop()).toBe(0)
    expect(api.output()).toContain('"msg":"stopped"')
  })

  it('refuses to start on a bad env value with a message, not a stack', async () => {
    await expect(startApi({ env: { SVC_AUTH_ENABLED: 'maybe' }, timeoutMs: 10_000 })).rejects.toThrow(
      /SVC_AUTH_ENABLED must be/,
    )
  })
})
