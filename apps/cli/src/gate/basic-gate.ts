/**
 * The password check behind the reverse proxy (`svc auth-gate`, svc-auth.service). Caddy 2.6's
 * `basicauth` has no rate limit, so every wrong password costs a full bcrypt and guessing is
 * unbounded; Caddy asks this instead (`forward_auth`), which throttles failed attempts per client
 * (packages/auth's throttle: 10 at once, then one every 6 s) before doing any bcrypt work.
 *
 * - Only the proxy may ask: the request must carry the proxy secret, and only then is its
 *   `X-Forwarded-For` (which Caddy sets to the client's address) believed.
 * - No credentials: 401 with `WWW-Authenticate` (the browser's first request; not counted).
 * - Right credentials: 200 with `X-Forwarded-Email: <user>`, which Caddy copies into the request.
 *   They are remembered (an HMAC of user and password, never the password) until the users file
 *   changes, so a signed-in browser costs no bcrypt per request. A remembered pair passes even a
 *   throttled client: it proves the password is known.
 * - Wrong credentials: 401 and one failure counted; no failures left: 429 with `Retry-After`.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { statSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { clientKey, createFailureThrottle, type FailureThrottle } from '@svc/auth'
import bcrypt from 'bcryptjs'

export const REALM = 'svc'
export const IDENTITY_HEADER = 'x-forwarded-email'
const SECRET_HEADER = 'x-svc-proxy-secret'
/** Remembered right credentials at most. */
const MAX_REMEMBERED = 1000
/** Compared against for an unknown user, so its answer takes as long as a known user's. */
let dummyHash: string | undefined
const dummy = () => {
  dummyHash ??= bcrypt.hashSync(randomBytes(16).toString('hex'), 12)
  return dummyHash
}

export interface GateOptions {
  /** `user:bcrypt-hash` lines (htpasswd with bcrypt), re-read when it changes. */
  usersFile: string
  /** The proxy's secret (`SVC_PROXY_SECRET`). */
  secret: string
  throttle?: FailureThrottle
  log?: (level: 'info' | 'warn', msg: string, fields: Record<string, unknown>) => void
}

export function createBasicGate(options: GateOptions) {
  const throttle = options.throttle ?? createFailureThrottle()
  const secretDigest = sha256(options.secret)
  const hmacKey = randomBytes(32)
  const remembered = new Map<string, string>()
  let users: { stamp: string; hashes: Map<string, string> } | undefined

  async function currentUsers() {
    const st = statSync(options.usersFile)
    const stamp = `${st.ino}:${st.size}:${st.mtimeMs}`
    if (users?.stamp !== stamp) {
      const hashes = new Map<string, string>()
      for (const line of (await readFile(options.usersFile, 'utf8')).split('\n')) {
        const at = line.indexOf(':')
        if (at > 0 && !line.startsWith('#')) hashes.set(line.slice(0, at), line.slice(at + 1).trim())
      }
      users = { stamp, hashes }
      remembered.clear()
    }
    return users
  }

  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const shown = req.headers[SECRET_HEADER]
    if (typeof shown !== 'string' || !timingSafeEqual(sha256(shown), secretDigest))
      return refuse(res, 403, 'auth.forbidden', 'only the reverse proxy may ask the auth gate')
    const forwarded = String(req.headers['x-forwarded-for'] ?? '')
      .split(',')
      .at(-1)
      ?.trim()
    const client = clientKey(forwarded || req.socket.remoteAddress)
    const creds = parseBasic(req.headers.authorization)
    if (!creds) return refuse(res, 401, 'auth.required', 'sign in with the admin user and password')

    const { stamp, hashes } = await currentUsers()
    const mac = createHmac('sha256', hmacKey).update(`${creds.user}\0${creds.password}`).digest('hex')
    if (remembered.get(mac) === stamp) return allow(res, creds.user)

    const decision = throttle.take(client)
    if (!decision.allowed) {
      options.log?.('warn', 'basic auth throttled', { client, retry_after_s: decision.retryAfterS })
      res.setHeader('retry-after', String(decision.retryAfterS))
      return refuse(res, 429, 'auth.throttled', 'too many failed sign-ins from this address; retry later')
    }
    const hash = hashes.get(creds.user)
    const ok = (await bcrypt.compare(creds.password, hash ?? dummy())) && hash !== undefined
    if (!ok) {
      options.log?.('warn', 'basic auth failed', { client, user: creds.user })
      return refuse(res, 401, 'auth.invalid', 'wrong user or password')
    }
    throttle.refund(client)
    if (remembered.size >= MAX_REMEMBERED) remembered.delete(remembered.keys().next().value ?? '')
    remembered.set(mac, stamp)
    return allow(res, creds.user)
  }
}

function allow(res: ServerResponse, user: string): void {
  res.writeHead(200, { [IDENTITY_HEADER]: user, 'content-length': '0' }).end()
}

function refuse(res: ServerResponse, status: number, code: string, message: string): void {
  const body = JSON.stringify({ error: { code, message, type: 'auth_error', param: null } })
  if (status === 401) res.setHeader('www-authenticate', `Basic realm="${REALM}"`)
  res.writeHead(status, { 'content-type': 'application/json' }).end(body)
}

/** `Authorization: Basic base64(user:password)`, or undefined. */
export function parseBasic(header: string | undefined): { user: string; password: string } | undefined {
  const m = /^basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '')
  if (!m?.[1]) return undefined
  const text = Buffer.from(m[1], 'base64').toString('utf8')
  const at = text.indexOf(':')
  return at > 0 ? { user: text.slice(0, at), password: text.slice(at + 1) } : undefined
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest()
}
