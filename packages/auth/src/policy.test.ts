import { describe, expect, it } from 'vitest'
import { allows, classify, OPEN_ENDPOINTS, POLICY, ROUTE_CLASSES, type RouteClass, SCOPES } from './policy'

describe('classify', () => {
  const cases: [string, string, RouteClass][] = [
    ['GET', '/api/health/system', 'open'],
    ['HEAD', '/api/status', 'open'],
    ['GET', '/api/metrics', 'open'],
    ['GET', '/api/features', 'open'],
    ['GET', '/api/install/state', 'open'],
    ['POST', '/api/install/complete', 'open'],
    ['GET', '/api/config/urls', 'open'],
    ['GET', '/api/auth/status', 'open'],
    ['GET', '/api/auth/login', 'open'],
    ['POST', '/api/auth/login', 'open'],
    ['DELETE', '/api/status', 'api-mutation'],
    ['GET', '/api/install/complete', 'api-mutation'],
    ['GET', '/v1/models', 'v1-models'],
    ['GET', '/v1/models/', 'v1-models'],
    ['GET', '/v1/models/qwen3-0.6b-q8_0', 'v1-models'],
    ['GET', '/v1/models/openai/gpt-4o-mini', 'v1-models'],
    ['POST', '/v1/models', 'v1-inference'],
    ['GET', '/v1/modelsx', 'v1-inference'],
    ['POST', '/v1/chat/completions', 'v1-inference'],
    ['POST', '/v1/embeddings', 'v1-inference'],
    ['POST', '/v1/images/generations', 'v1-inference'],
    ['GET', '/v1', 'v1-inference'],
    ['GET', '/api/images/cache/0b1c.png', 'image-cache'],
    ['HEAD', '/api/images/cache/0b1c.png', 'image-cache'],
    ['DELETE', '/api/images/cache/0b1c.png', 'api-mutation'],
    ['GET', '/api/slots', 'api-read'],
    ['GET', '/api/slots/primary/logs', 'api-read'],
    ['GET', '/api/models', 'api-read'],
    ['GET', '/api/events', 'api-read'],
    ['GET', '/api/hardware', 'api-read'],
    ['GET', '/api', 'api-read'],
    ['POST', '/api/slots/primary/load', 'slot-mutation'],
    ['POST', '/api/slots/primary/unload', 'slot-mutation'],
    ['PUT', '/api/slots/primary', 'slot-mutation'],
    ['DELETE', '/api/models/qwen', 'slot-mutation'],
    ['POST', '/api/slots', 'slot-mutation'],
    ['POST', '/api/models/qwen/pull', 'slot-mutation'],
    ['DELETE', '/api/models/qwen/pull', 'slot-mutation'],
    ['GET', '/api/slots/primary/logs', 'api-read'],
    ['GET', '/v1/audio/voices', 'v1-inference'],
    ['GET', '/api/auth/tokens', 'token-management'],
    ['POST', '/api/auth/tokens', 'token-management'],
    ['DELETE', '/api/auth/tokens/abcdefABCDEF', 'token-management'],
    ['POST', '/api/something', 'api-mutation'],
    ['OPTIONS', '/api/slots', 'slot-mutation'],
    ['GET', '/', 'dashboard'],
    ['GET', '/assets/app.js', 'dashboard'],
    ['POST', '/', 'api-mutation'],
    ['GET', '//api/auth/tokens', 'api-mutation'],
    ['GET', '/v1/models/../chat/completions', 'api-mutation'],
    ['GET', '/api/./slots', 'api-mutation'],
    ['GET', '/V1/models', 'api-mutation'],
    ['GET', '/Api/slots', 'api-mutation'],
    ['GET', '/API', 'api-mutation'],
    ['GET', '/v1x/page', 'dashboard'],
    ['GET', '/apis', 'dashboard'],
    ['get', '/api/slots', 'api-read'],
  ]
  it.each(cases)('%s %s is %s', (method, path, expected) => {
    expect(classify(method, path)).toBe(expected)
  })

  it('lists exactly the open endpoints of docs/api.md', () => {
    expect(Object.keys(OPEN_ENDPOINTS).sort()).toEqual(
      [
        '/api/health/system',
        '/api/status',
        '/api/metrics',
        '/api/features',
        '/api/install/state',
        '/api/install/complete',
        '/api/config/urls',
        '/api/auth/status',
        '/api/auth/login',
      ].sort(),
    )
  })
})

describe('allows', () => {
  // The scope table of docs/auth.md#scopes, written out by hand: the policy must agree with it cell by cell.
  const expected: Record<RouteClass, string> = {
    //                 admin all v1-only read-only
    open: '1111',
    'v1-models': '1111',
    'v1-inference': '1110',
    'image-cache': '1111',
    'api-read': '1101',
    dashboard: '1111',
    'slot-mutation': '1000',
    'token-management': '1000',
    'api-mutation': '1000',
  }
  for (const routeClass of ROUTE_CLASSES) {
    it(`matches the scope table for ${routeClass}`, () => {
      const got = SCOPES.map((s) => (allows(s, routeClass) ? '1' : '0')).join('')
      expect(got).toBe(expected[routeClass])
    })
  }

  it('lets no identity through anything but the open classes', () => {
    for (const routeClass of ROUTE_CLASSES) {
      expect(allows(null, routeClass)).toBe(POLICY[routeClass].open)
    }
    expect(ROUTE_CLASSES.filter((c) => POLICY[c].open)).toEqual(['open', 'v1-models', 'dashboard'])
  })
})

describe('classify: the Ollama API', () => {
  const cases: [string, string, RouteClass][] = [
    ['POST', '/api/chat', 'v1-inference'],
    ['POST', '/api/generate', 'v1-inference'],
    ['POST', '/api/embed', 'v1-inference'],
    ['POST', '/api/embeddings', 'v1-inference'],
    ['GET', '/api/chat', 'v1-inference'],
    ['GET', '/api/tags', 'v1-models'],
    ['HEAD', '/api/ps', 'v1-models'],
    ['GET', '/api/version', 'v1-models'],
    ['POST', '/api/show', 'v1-models'],
    ['GET', '/api/show', 'api-mutation'],
    ['POST', '/api/tags', 'api-mutation'],
    ['POST', '/api/pull', 'api-mutation'],
    ['POST', '/api/create', 'api-mutation'],
    ['DELETE', '/api/delete', 'api-mutation'],
    ['HEAD', '/api/blobs/sha256:abc', 'api-read'],
    ['POST', '/api/blobs/sha256:abc', 'api-mutation'],
    ['GET', '/api/chats', 'api-read'],
    ['GET', '/api/tags/', 'v1-models'],
  ]
  it.each(cases)('%s %s is %s', (method, path, expected) => {
    expect(classify(method, path)).toBe(expected)
  })
})
