/**
 * A real local image registry for tests: Debian's `docker-registry` (the Go "distribution" registry)
 * on 127.0.0.1:<free port> with a temp storage directory, plus helpers that push tiny images to it
 * through the Registry HTTP API v2 (no engine needed) and a token-auth front that makes it behave like
 * Docker Hub (401 + Bearer challenge → token service → retry).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import { createServer as createNetServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { missingPart } from './require-part'
import { findOnPath } from './which'

export interface LocalRegistry extends AsyncDisposable {
  /** `127.0.0.1:<port>`: the repository prefix for images in this registry. */
  host: string
  url: string
  stop(): Promise<void>
}

/** Starts `docker-registry serve` on a free loopback port; skips (or fails in CI) when it is missing. */
export async function startRegistry(): Promise<LocalRegistry | { skip: true; reason: string }> {
  const bin = findOnPath('docker-registry') ?? findOnPath('registry')
  if (!bin) return missingPart('docker-registry', 'apt-get install docker-registry (./scripts/setup.sh does)')
  const dir = await mkdtemp(join(tmpdir(), 'svc-registry-'))
  const port = await freeLoopbackPort()
  const config = join(dir, 'config.yml')
  await writeFile(
    config,
    `version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: ${join(dir, 'data')}\n  delete:\n    enabled: true\nhttp:\n  addr: 127.0.0.1:${port}\n`,
  )
  const child = spawn(bin, ['serve', config], { stdio: ['ignore', 'ignore', 'pipe'] })
  let err = ''
  child.stderr?.on('data', (d: Buffer) => {
    err = (err + d.toString()).slice(-4000)
  })
  const url = `http://127.0.0.1:${port}`
  const stop = async () => {
    await killChild(child)
    await rm(dir, { recursive: true, force: true })
  }
  const deadline = Date.now() + 15_000
  for (;;) {
    if ((await fetch(`${url}/v2/`).catch(() => undefined))?.ok) break
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop()
      throw new Error(`docker-registry did not start on ${url}: ${err.trim()}`)
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  return { host: `127.0.0.1:${port}`, url, stop, [Symbol.asyncDispose]: stop }
}

export interface PushedImage {
  /** Digest of what the tag points at (the index when `index` was asked for). */
  digest: string
  /** Digest of the single-platform manifest. */
  manifestDigest: string
}

/**
 * Pushes a tiny single-layer image (random bytes, so every call is a new digest) under `name:tag`.
 * With `index: true` the tag points at an OCI image index holding the manifest for linux/amd64.
 */
export async function pushTestImage(
  registryUrl: string,
  name: string,
  tag: string,
  options: { index?: boolean } = {},
): Promise<PushedImage> {
  const layer = randomBytes(64)
  const config = Buffer.from(
    JSON.stringify({
      architecture: 'amd64',
      os: 'linux',
      rootfs: { type: 'layers', diff_ids: [sha(layer)] },
    }),
  )
  await pushBlob(registryUrl, name, layer)
  await pushBlob(registryUrl, name, config)
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: {
        mediaType: 'application/vnd.oci.image.config.v1+json',
        size: config.length,
        digest: sha(config),
      },
      layers: [
        { mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', size: layer.length, digest: sha(layer) },
      ],
    }),
  )
  const manifestDigest = sha(manifest)
  const manifestRef = options.index ? manifestDigest : tag
  await putManifest(
    registryUrl,
    { name, ref: manifestRef },
    manifest,
    'application/vnd.oci.image.manifest.v1+json',
  )
  if (!options.index) return { digest: manifestDigest, manifestDigest }
  const index = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.index.v1+json',
      manifests: [
        {
          mediaType: 'application/vnd.oci.image.manifest.v1+json',
          size: manifest.length,
          digest: manifestDigest,
          platform: { architecture: 'amd64', os: 'linux' },
        },
      ],
    }),
  )
  await putManifest(registryUrl, { name, ref: tag }, index, 'application/vnd.oci.image.index.v1+json')
  return { digest: sha(index), manifestDigest }
}

export interface TokenAuthFront extends AsyncDisposable {
  host: string
  url: string
  /** Tokens handed out so far, with the scope each was asked for. */
  issued: { scope: string | null; service: string | null }[]
  stop(): Promise<void>
}

/**
 * An HTTP front for a registry that demands Bearer tokens like Docker Hub: `/v2/*` without a valid
 * token → 401 with `WWW-Authenticate: Bearer realm=…/token,service=…,scope=…`; `/token` hands one
 * out. With `omitDigestHeader` it also strips `Docker-Content-Digest` and answers HEAD with 405, as
 * some registries do, so clients must hash the manifest body themselves.
 */
export async function startTokenAuthFront(
  registryUrl: string,
  options: { omitDigestHeader?: boolean } = {},
): Promise<TokenAuthFront> {
  const token = randomBytes(12).toString('hex')
  const issued: TokenAuthFront['issued'] = []
  let self = ''
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', self)
    if (url.pathname === '/token') {
      issued.push({ scope: url.searchParams.get('scope'), service: url.searchParams.get('service') })
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ token }))
      return
    }
    if (req.headers.authorization !== `Bearer ${token}`) {
      const name = url.pathname.match(/^\/v2\/(.+)\/manifests\//)?.[1] ?? ''
      res
        .writeHead(401, {
          'www-authenticate': `Bearer realm="${self}/token",service="svc-test",scope="repository:${name}:pull"`,
          'content-type': 'application/json',
        })
        .end('{"errors":[{"code":"UNAUTHORIZED"}]}')
      return
    }
    if (options.omitDigestHeader && req.method === 'HEAD') {
      res.writeHead(405).end()
      return
    }
    const upstream = await fetch(new URL(url.pathname + url.search, registryUrl), {
      method: req.method ?? 'GET',
      headers: { accept: req.headers.accept ?? '*/*' },
    })
    const headers: Record<string, string> = {}
    upstream.headers.forEach((value, key) => {
      if (key === 'docker-content-digest' && options.omitDigestHeader) return
      if (key !== 'content-length' && key !== 'transfer-encoding') headers[key] = value
    })
    res.writeHead(upstream.status, headers).end(Buffer.from(await upstream.arrayBuffer()))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  self = `http://127.0.0.1:${port}`
  const stop = () => new Promise<void>((resolve) => server.close(() => resolve()))
  return { host: `127.0.0.1:${port}`, url: self, issued, stop, [Symbol.asyncDispose]: stop }
}

function sha(data: Buffer): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`
}

async function pushBlob(registryUrl: string, name: string, data: Buffer): Promise<void> {
  const start = await fetch(`${registryUrl}/v2/${name}/blobs/uploads/`, { method: 'POST' })
  const location = start.headers.get('location')
  if (start.status !== 202 || !location) throw new Error(`blob upload refused: HTTP ${start.status}`)
  const url = new URL(location, registryUrl)
  url.searchParams.set('digest', sha(data))
  const put = await fetch(url, {
    method: 'PUT',
    headers: { 'content-type': 'application/octet-stream' },
    body: new Uint8Array(data),
  })
  if (put.status !== 201) throw new Error(`blob upload failed: HTTP ${put.status} ${await put.text()}`)
}

/** `PUT /v2/<name>/manifests/<ref>` of `body` (an image manifest or an index, by `mediaType`). */
async function putManifest(
  registryUrl: string,
  at: { name: string; ref: string },
  body: Buffer,
  mediaType: string,
): Promise<void> {
  const res = await fetch(`${registryUrl}/v2/${at.name}/manifests/${at.ref}`, {
    method: 'PUT',
    headers: { 'content-type': mediaType },
    body: new Uint8Array(body),
  })
  if (res.status !== 201) throw new Error(`manifest push failed: HTTP ${res.status} ${await res.text()}`)
}

function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

async function killChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 3_000)
  await gone
  clearTimeout(timer)
}
