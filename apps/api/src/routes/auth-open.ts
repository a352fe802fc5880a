import type { Principal, Scope } from '@svc/auth'
import { Hono } from 'hono'
import type { AppDeps } from '../deps'

/**
 * Open auth endpoints.
 *
 * - `GET /api/auth/status` → `{enabled, mode, methods, login, caller}`: how to authenticate, never with
 *   what. `caller` says who the credentials sent with this request belong to (`null`: none, or auth
 *   is off): `{via: "token", scope, token_id, label}` or `{via: "proxy", scope: "admin", email}`.
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
        caller: callerOf(c.get('principal')),
      }),
    )
    .get('/login', (c) => login(c))
    .post('/login', (c) => login(c))
}

type Caller =
  | { via: 'token'; scope: Scope; token_id: string; label: string }
  | { via: 'proxy'; scope: 'admin'; email: string }
  | null

function callerOf(principal: Principal | undefined): Caller {
  if (principal?.kind === 'token') {
    return { via: 'token', scope: principal.scope, token_id: principal.tokenId, label: principal.label }
  }
  if (principal?.kind === 'proxy') return { via: 'proxy', scope: 'admin', email: principal.email }
  return null
}
