/**
 * A Hugging Face Hub stand-in for tests: the endpoints the Hub's own clients (`@huggingface/hub`,
 * `huggingface_hub`, llama.cpp) and svc use, answered as the real Hub answers them (see
 * ../shared/HUB.md's checklist), on two loopback origins: the Hub, and the CDN its `resolve` sends
 * LFS files to. The repos, tokens and faults are the test's. Every request is recorded, so a test can
 * assert what reached which origin (a token must never reach the CDN).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import {
  buildRepo,
  fileEntry,
  type HubRepo,
  type HubRepoSpec,
  modelInfo,
  pickExpanded,
  treeEntries,
} from './hub-repo'
import { searchModels } from './hub-search'

export interface HubStandInOptions {
  repos?: readonly HubRepoSpec[]
  /** Valid tokens → the user each belongs to (named in a repo's `access`). Tokens look like the Hub's. */
  tokens?: Record<string, string>
  /** Entries per page of `/tree` and `/api/models` (the Hub: 1000). Default 3, so paging is exercised. */
  pageSize?: number
}

/** One request the stand-in saw. */
export interface HubRequest {
  origin: 'hub' | 'cdn'
  method: string
  /** Path and query as sent. */
  url: string
  authorization: string | undefined
  range: string | undefined
}

export interface HubStandIn extends AsyncDisposable {
  /** The Hub's origin: what `HF_ENDPOINT` is set to. */
  url: string
  /** The CDN's origin (another port: another origin). */
  cdnUrl: string
  requests: HubRequest[]
  /** Adds or replaces a repo. */
  setRepo(spec: HubRepoSpec): void
  /** The commit sha the stand-in states for a repo. */
  sha(repoId: string): string
  /** From now on the CDN serves `path` of `repoId` altered (or, with `false`, intact again). */
  corrupt(repoId: string, path: string, on?: boolean): void
  /** The next `times` requests to the Hub origin answer `status` (429, 500, …) with a JSON error. */
  failNext(status: number, times?: number): void
  /**
   * From now on the CDN sends `path` of `repoId` at about `bytesPerSecond` (16 kB chunks), so a pull
   * lasts long enough to watch its progress; `undefined` lifts it.
   */
  throttle(repoId: string, path: string, bytesPerSecond: number | undefined): void
}

/** A token of the Hub's shape: `hf_` and 34 or more letters and digits. */
export const HUB_TOKEN_RE = /^hf_[A-Za-z0-9]{34,}$/

/** A well-formed Hub token for tests, from a short seed (`hubToken('alice')`). */
export function hubToken(seed: string): string {
  return `hf_${seed.replace(/[^A-Za-z0-9]/g, '').padEnd(34, 'x')}`
}

type Caller = { kind: 'anonymous' } | { kind: 'user'; name: string } | { kind: 'invalid' }

/** Starts the Hub and its CDN on 127.0.0.1, port 0 each. */
export async function startHubStandIn(options: HubStandInOptions = {}): Promise<HubStandIn> {
  const repos = new Map<string, HubRepo>()
  const corrupt = new Set<string>()
  const rates = new Map<string, number>()
  const requests: HubRequest[] = []
  const pageSize = options.pageSize ?? 3
  const tokens = options.tokens ?? {}
  let failures: { status: number; left: number } | undefined
  const setRepo = (spec: HubRepoSpec) => {
    const repo = buildRepo(spec)
    repos.set(repo.id.toLowerCase(), repo)
    for (const path of spec.corrupt ?? []) corrupt.add(`${repo.id.toLowerCase()}\0${path}`)
  }
  for (const spec of options.repos ?? []) setRepo(spec)

  const record = (origin: HubRequest['origin'], req: IncomingMessage) =>
    requests.push({
      origin,
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      authorization: req.headers.authorization,
      range: req.headers.range,
    })

  const hub = createServer((req, res) => {
    record('hub', req)
    if (failures && failures.left > 0) {
      failures.left--
      const headers: Record<string, string> = failures.status === 429 ? { 'retry-after': '1' } : {}
      return sendError(
        res,
        failures.status,
        'Too many requests, or the Hub is down (stand-in fault)',
        undefined,
        headers,
      )
    }
    handleHub(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendError(res, 500, `stand-in error: ${(error as Error).message}`)
      else res.destroy()
    })
  })
  const cdn = createServer((req, res) => {
    record('cdn', req)
    handleCdn(req, res)
  })
  await Promise.all([listen(hub), listen(cdn)])
  const hubUrl = `http://127.0.0.1:${portOf(hub)}`
  const cdnUrl = `http://127.0.0.1:${portOf(cdn)}`

  function caller(req: IncomingMessage): Caller {
    const header = req.headers.authorization
    if (!header) return { kind: 'anonymous' }
    const token = /^Bearer\s+(\S+)$/i.exec(header)?.[1]
    const name = token && HUB_TOKEN_RE.test(token) ? tokens[token] : undefined
    return name ? { kind: 'user', name } : { kind: 'invalid' }
  }

  function findRepo(res: ServerResponse, id: string, who: Caller): HubRepo | undefined {
    const repo = repos.get(id.toLowerCase())
    const member = repo && who.kind === 'user' && (repo.spec.access ?? []).includes(who.name)
    if (repo && (!repo.spec.private || member)) return repo
    // The Hub does not tell a private repo from a missing one.
    const message = `Repository Not Found for url: ${hubUrl}/api/models/${id}. Please make sure you specified the correct \`repo_id\` and \`repo_type\`. If you are trying to access a private or gated repo, make sure you are authenticated.`
    sendError(res, who.kind === 'user' ? 404 : 401, message, 'RepoNotFound')
    return undefined
  }

  function revisionOk(res: ServerResponse, repo: HubRepo, rev: string): boolean {
    if (rev === 'main' || rev === 'HEAD' || rev === repo.sha) return true
    sendError(res, 404, `Invalid rev id: ${rev}`, 'RevisionNotFound')
    return false
  }

  async function handleHub(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', hubUrl)
    const parts = url.pathname.split('/').slice(1).map(decodeURIComponent)
    const who = caller(req)
    if (who.kind === 'invalid') {
      return sendError(res, 401, 'Invalid credentials in Authorization header', undefined, {
        'x-error-message': 'Invalid credentials in Authorization header',
      })
    }
    if (url.pathname === '/api/whoami-v2') {
      if (who.kind !== 'user') return sendError(res, 401, 'Invalid credentials in Authorization header')
      return sendJson(res, 200, {
        type: 'user',
        id: who.name,
        name: who.name,
        fullname: who.name,
        orgs: [],
        auth: { type: 'access_token', accessToken: { displayName: 'svc-tests', role: 'read' } },
      })
    }
    if (url.pathname === '/api/models') {
      const visible = [...repos.values()].filter(
        (r) => !r.spec.private || (who.kind === 'user' && (r.spec.access ?? []).includes(who.name)),
      )
      let page: ReturnType<typeof searchModels>
      try {
        page = searchModels(visible, url.searchParams, pageSize)
      } catch {
        return sendError(res, 400, `Invalid sort parameter: ${url.searchParams.get('sort')}`)
      }
      return sendJson(res, 200, page.items, linkTo(url, page.next))
    }
    if (parts[0] === 'api' && parts[1] === 'models' && parts.length >= 4) {
      const repo = findRepo(res, `${parts[2]}/${parts[3]}`, who)
      if (!repo) return
      const [what, rev = 'main', ...rest] = parts.slice(4)
      if (what === undefined || what === 'revision') {
        if (!revisionOk(res, repo, rev)) return
        const info = modelInfo(repo, url.searchParams.get('blobs') === 'true')
        return sendJson(res, 200, pickExpanded(info, url.searchParams.getAll('expand')))
      }
      if (what === 'refs') {
        return sendJson(res, 200, {
          branches: [{ name: 'main', ref: 'refs/heads/main', targetCommit: repo.sha }],
          converts: [],
          tags: [],
        })
      }
      if (what === 'tree' && req.method === 'GET') {
        if (!revisionOk(res, repo, rev)) return
        const path = rest.join('/')
        const expand = url.searchParams.get('expand') === 'true'
        const all = treeEntries(repo, path, url.searchParams.get('recursive') === 'true', expand)
        if (!all) return sendError(res, 404, `Entry not found: ${path}`, 'EntryNotFound')
        const size = expand ? Math.min(pageSize, 50) : pageSize
        const offset = Number(url.searchParams.get('cursor') ?? 0) || 0
        const end = offset + size
        return sendJson(
          res,
          200,
          all.slice(offset, end),
          linkTo(url, end < all.length ? String(end) : undefined),
        )
      }
      if (what === 'paths-info' && req.method === 'POST') {
        if (!revisionOk(res, repo, rev)) return
        const body = await readBody(req)
        const { paths, expand } = parsePathsInfo(body, req.headers['content-type'])
        const out = paths.flatMap((p) => {
          const file = repo.files.find((f) => f.path === p)
          if (file) return [fileEntry(repo, file, expand)]
          const dir = treeEntries(repo, '', true, expand)?.find((e) => e.type === 'directory' && e.path === p)
          return dir ? [dir] : []
        })
        return sendJson(res, 200, out)
      }
      return sendError(res, 404, 'Sorry, we can\u2019t find the page you are looking for.')
    }
    // /{owner}/{repo}/resolve/{rev}/{path}
    if (parts.length >= 5 && parts[2] === 'resolve' && (req.method === 'GET' || req.method === 'HEAD')) {
      const repo = findRepo(res, `${parts[0]}/${parts[1]}`, who)
      if (!repo) return
      const rev = parts[3]!
      if (!revisionOk(res, repo, rev)) return
      const path = parts.slice(4).join('/')
      const file = repo.files.find((f) => f.path === path)
      if (!file) return sendError(res, 404, `Entry not found`, 'EntryNotFound')
      if (repo.spec.gated && !(who.kind === 'user' && (repo.spec.access ?? []).includes(who.name))) {
        const msg =
          who.kind === 'user'
            ? `Access to model ${repo.id} is restricted and you are not in the authorized list. Visit ${hubUrl}/${repo.id} to ask for access.`
            : `Access to model ${repo.id} is restricted. You must have access to it and be authenticated to access it. Please log in.`
        return sendError(res, who.kind === 'user' ? 403 : 401, msg, 'GatedRepo')
      }
      const common = {
        'x-repo-commit': repo.sha,
        'access-control-expose-headers': 'X-Repo-Commit,X-Linked-Etag,X-Linked-Size,ETag',
      }
      if (file.lfs) {
        const location = `${cdnUrl}/repos/${encodeURIComponent(repo.id.toLowerCase())}/${file.sha256}?X-Amz-Expires=3600&X-Amz-Signature=${repo.sha.slice(0, 16)}&response-content-disposition=${encodeURIComponent(`inline; filename="${path.split('/').pop()}"`)}`
        res.writeHead(302, {
          ...common,
          location,
          'x-linked-etag': `"${file.sha256}"`,
          'x-linked-size': String(file.content.length),
          etag: `"${file.sha256}"`,
          'content-length': 0,
        })
        res.end()
        return
      }
      return sendBytes(req, res, file.content, { ...common, etag: `"${file.oid}"` })
    }
    sendError(res, 404, 'Sorry, we can\u2019t find the page you are looking for.')
  }

  function handleCdn(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', cdnUrl)
    const m = /^\/repos\/([^/]+)\/([0-9a-f]{64})$/.exec(url.pathname)
    const repo = m ? repos.get(decodeURIComponent(m[1]!)) : undefined
    const file = repo?.files.find((f) => f.sha256 === m?.[2])
    if (!repo || !file || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'application/xml' }).end('<Error><Code>NoSuchKey</Code></Error>')
      return
    }
    let body = file.content
    if (corrupt.has(`${repo.id.toLowerCase()}\0${file.path}`)) {
      body = Buffer.from(body)
      const at = body.length >> 1
      body[at] = (body[at] ?? 0) ^ 0xff
    }
    const rate = rates.get(`${repo.id.toLowerCase()}\0${file.path}`)
    sendBytes(req, res, body, { etag: `"${file.sha256}"`, 'content-type': 'binary/octet-stream' }, rate)
  }

  return {
    url: hubUrl,
    cdnUrl,
    requests,
    setRepo,
    sha(repoId) {
      const repo = repos.get(repoId.toLowerCase())
      if (!repo) throw new Error(`no repo ${repoId}`)
      return repo.sha
    },
    corrupt(repoId, path, on = true) {
      const key = `${repoId.toLowerCase()}\0${path}`
      if (on) corrupt.add(key)
      else corrupt.delete(key)
    },
    failNext(status, times = 1) {
      failures = { status, left: times }
    },
    throttle(repoId, path, bytesPerSecond) {
      const key = `${repoId.toLowerCase()}\0${path}`
      if (bytesPerSecond === undefined) rates.delete(key)
      else rates.set(key, bytesPerSecond)
    },
    async [Symbol.asyncDispose]() {
      for (const server of [hub, cdn]) {
        server.closeAllConnections()
        await new Promise((r) => server.close(r))
      }
    },
  }
}

/** The absolute `Link: <…>; rel="next"` the Hub pages with (the request's URL with `cursor`). */
function linkTo(url: URL, cursor: string | undefined): Record<string, string> {
  if (cursor === undefined) return {}
  const next = new URL(url.href)
  next.searchParams.set('cursor', cursor)
  return { link: `<${next.href}>; rel="next"` }
}

/** Body with Range (`bytes=a-b`, `bytes=a-`, `bytes=-n`): 206, 416 past the end; HEAD sends no body. */
function sendBytes(
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
  headers: Record<string, string>,
  bytesPerSecond?: number,
): void {
  const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '')
  const base = { ...headers, 'accept-ranges': 'bytes' }
  if (range && (range[1] || range[2])) {
    let start: number
    let end: number
    if (range[1]) {
      start = Number(range[1])
      end = range[2] ? Math.min(Number(range[2]), body.length - 1) : body.length - 1
    } else {
      start = Math.max(0, body.length - Number(range[2]))
      end = body.length - 1
    }
    if (start >= body.length || end < start) {
      res.writeHead(416, { ...base, 'content-range': `bytes */${body.length}` }).end()
      return
    }
    res.writeHead(206, {
      ...base,
      'content-length': end - start + 1,
      'content-range': `bytes ${start}-${end}/${body.length}`,
    })
    endWith(req, res, body.subarray(start, end + 1), bytesPerSecond)
    return
  }
  res.writeHead(200, { ...base, 'content-length': body.length })
  endWith(req, res, body, bytesPerSecond)
}

/** Ends `res` with `body` (nothing for HEAD), at once or in 16 kB chunks at `bytesPerSecond`. */
function endWith(req: IncomingMessage, res: ServerResponse, body: Buffer, bytesPerSecond?: number): void {
  if (req.method === 'HEAD') return void res.end()
  if (!bytesPerSecond) return void res.end(body)
  const chunk = 16_384
  let at = 0
  const next = () => {
    if (res.destroyed) return
    if (at >= body.length) return void res.end()
    res.write(body.subarray(at, at + chunk))
    at += chunk
    setTimeout(next, (chunk / bytesPerSecond) * 1000)
  }
  next()
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  })
  res.end(text)
}

/** The Hub's error answer: `{"error": message}`, with `X-Error-Code` / `X-Error-Message`. */
function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  code?: string,
  headers: Record<string, string> = {},
): void {
  sendJson(
    res,
    status,
    { error: message },
    {
      ...(code ? { 'x-error-code': code } : {}),
      'x-error-message': headers['x-error-message'] ?? message.replace(/[^\x20-\x7e]/g, ''),
      ...headers,
    },
  )
}

function parsePathsInfo(body: string, contentType: string | undefined): { paths: string[]; expand: boolean } {
  if (contentType?.includes('application/json')) {
    const json = JSON.parse(body || '{}') as { paths?: unknown; expand?: unknown }
    const paths = Array.isArray(json.paths) ? json.paths.map(String) : []
    return { paths, expand: json.expand === true || json.expand === 'true' }
  }
  const form = new URLSearchParams(body)
  return { paths: form.getAll('paths'), expand: form.get('expand') === 'true' }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

function listen(server: Server): Promise<void> {
  return new Promise((r) => server.listen(0, '127.0.0.1', r))
}

function portOf(server: Server): number {
  const address = server.address()
  return typeof address === 'object' && address ? address.port : 0
}
