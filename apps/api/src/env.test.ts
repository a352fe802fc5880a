import { describe, expect, it } from 'vitest'
import { readServeEnv } from './env'

const dirs = { SVC_CONFIG_DIR: '/c', SVC_STATE_DIR: '/s' }

describe('readServeEnv', () => {
  it('carries every setting the server uses in the one object, parsed', () => {
    const env = readServeEnv({
      ...dirs,
      SVC_PROVIDER_MODULES: ' ./a.js, @acme/provider ,',
      SVC_MODELS_MANIFEST: '/m/models.toml',
      SVC_IMAGES_MANIFEST: '/m/images.toml',
      SVC_DASHBOARD_DIR: '/d',
    })
    expect(env.providerModules).toEqual(['./a.js', '@acme/provider'])
    expect(env.modelsManifest).toBe('/m/models.toml')
    expect(env.imagesManifest).toBe('/m/images.toml')
    expect(env.dashboardDir).toBe('/d')
  })

  it('takes the documented defaults when nothing is set', () => {
    const env = readServeEnv(dirs)
    expect(env).toMatchObject({
      host: '0.0.0.0',
      port: 8080,
      ollamaPort: undefined,
      logLevel: 'info',
      authEnabled: false,
      drainMs: 10_000,
      queueTimeoutMs: 120_000,
      upstreamTimeoutMs: 600_000,
      unloadGraceMs: 30_000,
      maxConnections: 512,
      maxStreams: 64,
      demand: { loadOnRequest: false, unloadAfterMs: 0 },
      usage: { enabled: true, flushMs: 2000, retention: { hourlyDays: 90, dailyDays: 0 } },
      providerModules: [],
      modelsManifest: undefined,
      imagesManifest: undefined,
      dashboardDir: undefined,
    })
  })

  it('keeps a frozen copy of the environment for upstream programs and hosted API keys', () => {
    const raw: Record<string, string | undefined> = { ...dirs, PATH: '/bin', OPENAI_API_KEY: 'sk-1' }
    const env = readServeEnv(raw)
    raw.OPENAI_API_KEY = 'changed later'
    expect(env.processEnv.OPENAI_API_KEY).toBe('sk-1')
    expect(env.processEnv.PATH).toBe('/bin')
    expect(Object.isFrozen(env.processEnv)).toBe(true)
  })

  it.each([
    ['SVC_PORT', 'http'],
    ['SVC_OLLAMA_PORT', '70000'],
    ['SVC_AUTH_ENABLED', 'maybe'],
    ['SVC_LOAD_ON_REQUEST', 'sometimes'],
    ['SVC_LOG_LEVEL', 'loud'],
    ['SVC_DRAIN_SECONDS', '-1'],
    ['SVC_QUEUE_TIMEOUT', 'two minutes'],
    ['SVC_MAX_CONNECTIONS', '0'],
    ['SVC_MAX_STREAMS', '1.5'],
    ['SVC_UNLOAD_AFTER', 'soon'],
    ['SVC_USAGE_FLUSH_SECONDS', '0'],
    ['SVC_USAGE_ENABLED', 'perhaps'],
    ['SVC_MEMORY_BUDGET_GB', 'lots'],
  ])('refuses %s=%s with a message naming the variable', (name, value) => {
    expect(() => readServeEnv({ ...dirs, [name]: value })).toThrow(name)
  })
})
