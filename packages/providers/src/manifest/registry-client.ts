/**
 * Resolves an image tag to its content digest through the Docker Registry HTTP API v2, the way
 * `docker pull` does: `HEAD /v2/<name>/manifests/<tag>` accepting manifest lists / OCI indexes first
 * (so the digest pins every platform), then single manifests. The digest is the
 * `Docker-Content-Digest` header, or the sha256 of the manifest body when a registry omits it.
 * Registries that answer 401 with a `Bearer` challenge get the anonymous token flow (Docker Hub,
 * ghcr.io); loopback registries are plain http.
 */
import { createHash } from 'node:crypto'
import { parseRepository } from './image-ref'

export const MANIFEST_MEDIA_TYPES = [
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
] as const

const DIGEST = /^sha256:[0-9a-f]{64}$/

export interface ResolvedDigest {
  digest: string
  /** Media type of what the tag points at (an index / manifest list, or one manifest). */
  mediaType: string | null
}

export interface ResolveDigestOptions {
  signal?: AbortSignal
  /** Per request (ms). Default 15 s. */
  timeoutMs?: number
}

/** An answer the registry gave that is not a digest (missing tag, auth refused, bad header…). */
export class RegistryError extends Error {
  override readonly name = 'RegistryError'
}

/**
 * Resolves `<repository>:<tag>` to `sha256:…`. Rejects with a `RegistryError` (or a network error)
 * naming the URL; never returns a digest it did not verify the form of.
 */
export async function resolveDigest(
  repository: string,
  tag: string,
  options: ResolveDigestOptions = {},
): Promise<ResolvedDigest> {
  const repo = parseRepository(repository)
  const url = new URL(`/v2/${repo.name}/manifests/${encodeURIComponent(tag)}`, repo.registry)
  const call = (method: 'HEAD' | 'GET', auth?: string) =>
    fetch(url, {
      method,
      headers: { Accept: MANIFEST_MEDIA_TYPES.join(', '), ...(auth ? { Authorization: auth } : {}) },
      signal: withTimeout(options),
      redirect: 'follow',
    })

  let auth: string | undefined
  let res = await call('HEAD')
  if (res.status === 401) {
    auth = await authorize(res.headers.get('www-authenticate'), repo.name, options)
    res = await call('HEAD', auth)
  }
  const fromHeader = res.ok ? res.headers.get('docker-content-digest') : null
  if (fromHeader && DIGEST.test(fromHeader)) {
    return { digest: fromHeader, mediaType: mediaTypeOf(res) }
  }
  // Some registries refuse HEAD or omit the header: fetch the manifest and hash it ourselves.
  res = await call('GET', auth)
  if (!res.ok) {
    const detail = (await res.text().catch(() => '')).slice(0, 200).trim()
    throw new RegistryError(
      `${url.href}: ${res.status === 404 ? 'no such tag or repository' : `HTTP ${res.status}`}${detail ? ` (${detail})` : ''}`,
    )
  }
  const body = Buffer.from(await res.arrayBuffer())
  const header = res.headers.get('docker-content-digest')
  const digest =
    header && DIGEST.test(header) ? header : `sha256:${createHash('sha256').update(body).digest('hex')}`
  return { digest, mediaType: mediaTypeOf(res) }
}

function withTimeout(options: ResolveDigestOptions): AbortSignal {
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 15_000)
  return options.signal ? AbortSignal.any([options.signal, timeout]) : timeout
}

function mediaTypeOf(res: Response): string | null {
  return res.headers.get('content-type')?.split(';')[0]?.trim() || null
}

/** Parses `Bearer realm="…",service="…",scope="…"` (quoted values may contain commas). */
export function parseChallenge(header: string): { scheme: string; params: Record<string, string> } {
  const space = header.indexOf(' ')
  const scheme = (space === -1 ? header : header.slice(0, space)).toLowerCase()
  const params: Record<string, string> = {}
  const re = /([a-zA-Z_]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))/g
  for (const m of header.slice(space + 1).matchAll(re)) {
    if (m[1]) params[m[1].toLowerCase()] = m[2] ?? m[3] ?? ''
  }
  return { scheme, params }
}

/** The anonymous token flow of the Docker token spec: GET realm?service=…&scope=… → {token}. */
async function authorize(
  header: string | null,
  name: string,
  options: ResolveDigestOptions,
): Promise<string> {
  if (!header) throw new RegistryError('registry answered 401 without a WWW-Authenticate challenge')
  const { scheme, params } = parseChallenge(header)
  if (scheme !== 'bearer' || !params.realm) {
    throw new RegistryError(`registry wants "${scheme}" authentication, which svc manifest pin does not do`)
  }
  const realm = new URL(params.realm)
  if (params.service) realm.searchParams.set('service', params.service)
  realm.searchParams.set('scope', params.scope || `repository:${name}:pull`)
  const res = await fetch(realm, { signal: withTimeout(options) })
  if (!res.ok) throw new RegistryError(`token service ${realm.origin} refused: HTTP ${res.status}`)
  const body = (await res.json().catch(() => ({}))) as { token?: unknown; access_token?: unknown }
  const token = typeof body.token === 'string' ? body.token : body.access_token
  if (typeof token !== 'string' || !token) {
    throw new RegistryError(`token service ${realm.origin} returned no token`)
  }
  return `Bearer ${token}`
}
