import { describe, expect, it } from 'vitest'
import { readChatEnv } from './env'
import { CHAT_ENV_VARIABLES } from './env-variables'

const dirs = { SVC_STATE_DIR: '/s' }

describe('readChatEnv', () => {
  it('takes the defaults its table declares (and docs/chat.md shows) when nothing is set', () => {
    const fallback = (name: string) => CHAT_ENV_VARIABLES.find((v) => v.name === name)
    expect(fallback('SVC_CHAT_QUOTA_MB')).toMatchObject({ fallback: '1024' })
    expect(readChatEnv(dirs)).toMatchObject({
      host: '127.0.0.1',
      port: 3001,
      dataDir: '/s/chat',
      trustedHeader: undefined,
      apiUrl: 'http://127.0.0.1:8080',
      apiToken: undefined,
      logLevel: 'info',
      quotaBytes: 1024 * 1024 * 1024,
      staticDir: undefined,
      maxConnections: 512,
    })
  })

  it('carries every setting in the one object, parsed', () => {
    const env = readChatEnv({
      ...dirs,
      SVC_CHAT_HOST: '0.0.0.0',
      SVC_CHAT_PORT: '0',
      SVC_CHAT_TRUSTED_HEADER: 'X-Forwarded-Email',
      SVC_CHAT_API_URL: 'https://svc.example.com/',
      SVC_CHAT_API_TOKEN: ' t0k ',
      SVC_CHAT_QUOTA_MB: '0',
      SVC_CHAT_STATIC_DIR: '/d',
      SVC_CHAT_MAX_CONNECTIONS: '8',
      SVC_LOG_LEVEL: 'debug',
      SVC_PROXY_SECRET: 'shh',
    })
    expect(env).toMatchObject({
      host: '0.0.0.0',
      port: 0,
      trustedHeader: 'x-forwarded-email',
      apiUrl: 'https://svc.example.com',
      apiToken: 't0k',
      quotaBytes: 0,
      staticDir: '/d',
      maxConnections: 8,
      logLevel: 'debug',
      proxySecret: 'shh',
    })
  })

  it.each([
    ['SVC_CHAT_PORT', 'lots', 'SVC_CHAT_PORT must be a port number, got "lots"'],
    ['SVC_CHAT_QUOTA_MB', '1.5', 'SVC_CHAT_QUOTA_MB must be a whole number of MB >= 0, got "1.5"'],
    ['SVC_CHAT_MAX_CONNECTIONS', '0', 'SVC_CHAT_MAX_CONNECTIONS must be a whole number >= 1, got "0"'],
    ['SVC_CHAT_API_URL', 'ftp://api', 'SVC_CHAT_API_URL must be an http(s) URL, got "ftp://api"'],
    ['SVC_CHAT_TRUSTED_HEADER', 'X Email', 'SVC_CHAT_TRUSTED_HEADER must be a header name'],
    ['SVC_LOG_LEVEL', 'loud', 'SVC_LOG_LEVEL must be debug, info, warn or error, got "loud"'],
    ['SVC_TRUSTED_PROXIES', 'not-an-ip', 'SVC_TRUSTED_PROXIES'],
  ])('refuses %s=%s, naming the variable', (name, value, message) => {
    expect(() => readChatEnv({ ...dirs, [name]: value })).toThrow(message)
  })
})
