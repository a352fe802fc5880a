import { Hono } from 'hono'
import type { AppDeps } from '../deps'

/**
 * Open auth endpoints.
 *
 * - `GET /api/auth/status` → `{enabled, mode, methods, login}`: how to authenticate, never with what.
 * - `GET|POST /api/auth/login` → `{login:"proxy", message}`: svc has no login form; the reverse proxy
 *   in front of it (Caddy with basic auth) owns login for people, bearer tokens serve programs.
 */
export function authOpenRoutes(deps: AppDeps) {
  const login = (c: { json: (body: unknown) => Response }) =>
    c.json({
      login: 'proxy' as const,
      message: deps.auth.enabled
        ? 'svc has no login form: sign in through the reverse proxy in front of it; programs use a bearer token (svc token create).'
        : 'authentication is off (SVC_AUTH_ENABLED=0): no login is needed.',
    })
  return new Hono()
    .get('/status', (c) =>
      c.json({
        enabled: deps.auth.enabled,
        mode: deps.auth.enabled ? ('proxy+token' as const) : ('off' as const),
        methods: deps.auth.enabled ? ['bearer', 'forwarded-identity'] : [],
        login: '/api/auth/login',
      }),
    )
    .get('/login', (c) => login(c))
    .post('/login', (c) => login(c))
}
