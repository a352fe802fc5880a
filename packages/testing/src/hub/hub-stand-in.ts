/**
 * A Hugging Face Hub stand-in for tests: the endpoints the Hub's own clients (`@huggingface/hub`,
 * `huggingface_hub`, llama.cpp) and svc use, answered as the real Hub answers them (what it imitates:
 * docs/development.md, "The Hugging Face Hub stand-in"), on two loopback origins: the Hub, and the
 * CDN its `resolve` sends LFS files to. The repos, tokens and faults are the test's. Every request is recorded, so a test can
 * assert what reached which origin (a token must never reach the CDN).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import {
  HUB_TOKEN_RE,
  linkTo,
  listen,
  parsePathsInfo,
  portOf,
  readBody,
  sendBytes,
  sendError,
  sendJson,
} from './hub-http'
import {
  buildRepo,
  type HubRepo,
  type HubRepoSpec,
  modelInfo,
  pathsInfo,
  pickExpanded,
  refsOf,
  treeEntries,
  whoami,
} from './hub-repo'
import { searchModels } from './hub-search'

export { HUB_TOKEN_RE, hubToken } from './hub-http'

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
      return sendJson(res, 200, whoami(who.name))
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
        return sendJson(res, 200, refsOf(repo))
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
        return sendJson(res, 200, pathsInfo(repo, paths, expand))
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
