/**
 * The repositories a Hub stand-in serves, as a test gives them, and the facts the Hub states about
 * each file: git blob sha1 (`oid`), and for LFS files the sha256 and size (`lfs{oid,size,pointerSize}`).
 * Pure.
 */
import { createHash } from 'node:crypto'

/** A model repository as a test describes it. */
export interface HubRepoSpec {
  /** `owner/name`, as the Hub spells it (lookups are case-insensitive, as on the Hub). */
  id: string
  /** Path in the repo → content. Folders are implied by the paths (`sub/x.gguf`). */
  files: Record<string, Buffer>
  /** `false` (default), `'auto'` or `'manual'`: files need an approved token; metadata stays public. */
  gated?: false | 'auto' | 'manual'
  /** Everything (metadata too) needs a token of a user in `access`. */
  private?: boolean
  /** Users (see `HubStandInOptions.tokens`) approved for a gated repo or members of a private one. */
  access?: readonly string[]
  /** Paths whose bytes the CDN serves altered (one byte flipped) while the tree states the real sha256. */
  corrupt?: readonly string[]
  /** Files stored with LFS (302 to the CDN). Default: `.gguf`, `.safetensors`, `.bin` and files over 10 kB. */
  lfs?: (path: string) => boolean
  /** Model-info extras. */
  downloads?: number
  likes?: number
  tags?: readonly string[]
  pipeline_tag?: string
  library_name?: string
  /** ISO dates; default a fixed date. */
  createdAt?: string
  lastModified?: string
  trendingScore?: number
  /** The `gguf` object of the model info (the Hub describes one file); default: `{ totalFileSize }`. */
  gguf?: Record<string, unknown>
}

/** One file of a repo with what the Hub says of it. */
export interface HubFile {
  path: string
  content: Buffer
  /** Git blob sha1 (what `oid` and a small file's ETag say). */
  oid: string
  sha256: string
  lfs: boolean
}

/** A repo ready to serve: files with their hashes, a commit sha. */
export interface HubRepo {
  spec: HubRepoSpec
  id: string
  sha: string
  files: HubFile[]
}

const LFS_EXT = /\.(gguf|safetensors|bin)$/i
export const DEFAULT_DATE = '2026-01-15T10:00:00.000Z'

/** Git's blob id of `content`: sha1 of `blob <size>\0<content>`. */
export function gitBlobSha1(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex')
}

export function sha256Hex(content: Buffer): string {
  return createHash('sha256').update(content).digest('hex')
}

/** Prepares `spec` for serving. Throws on an id that is not `owner/name`. */
export function buildRepo(spec: HubRepoSpec): HubRepo {
  if (!/^[\w.-]+\/[\w.-]+$/.test(spec.id)) throw new Error(`hub repo id "${spec.id}" is not owner/name`)
  const isLfs = spec.lfs ?? ((p: string) => LFS_EXT.test(p))
  const files = Object.entries(spec.files)
    .map(([path, content]) => ({
      path,
      content,
      oid: gitBlobSha1(content),
      sha256: sha256Hex(content),
      lfs: isLfs(path) || content.length > 10_000,
    }))
    .sort((a, b) => a.path.localeCompare(b.path))
  const sha = createHash('sha1')
    .update(spec.id)
    .update(files.map((f) => `${f.path}:${f.oid}`).join('\n'))
    .digest('hex')
  return { spec, id: spec.id, sha, files }
}

/** A tree entry as `/api/models/{repo}/tree/{rev}` answers it. */
export type TreeEntry =
  | {
      type: 'file'
      oid: string
      size: number
      path: string
      lfs?: { oid: string; size: number; pointerSize: number }
      lastCommit?: { id: string; title: string; date: string }
    }
  | {
      type: 'directory'
      oid: string
      size: 0
      path: string
      lastCommit?: { id: string; title: string; date: string }
    }

/** The LFS pointer file's size (what `pointerSize` states): the pointer text git stores. */
function pointerSize(file: HubFile): number {
  return `version https://git-lfs.github.com/spec/v1\noid sha256:${file.sha256}\nsize ${file.content.length}\n`
    .length
}

export function fileEntry(repo: HubRepo, file: HubFile, expand: boolean): TreeEntry {
  return {
    type: 'file',
    oid: file.oid,
    size: file.content.length,
    path: file.path,
    ...(file.lfs
      ? { lfs: { oid: file.sha256, size: file.content.length, pointerSize: pointerSize(file) } }
      : {}),
    ...(expand ? { lastCommit: lastCommit(repo) } : {}),
  }
}

function lastCommit(repo: HubRepo) {
  return {
    id: repo.sha,
    title: 'Upload folder using huggingface_hub',
    date: repo.spec.lastModified ?? DEFAULT_DATE,
  }
}

/**
 * The tree under `path` ('' = root): immediate children, or every descendant with `recursive`
 * (folders included, as the Hub lists them). Folders first at each level is not promised by the Hub;
 * entries are sorted by path. Undefined when `path` is neither a folder nor a file.
 */
export function treeEntries(
  repo: HubRepo,
  path: string,
  recursive: boolean,
  expand: boolean,
): TreeEntry[] | undefined {
  const prefix = path ? `${path.replace(/\/+$/, '')}/` : ''
  const dirs = new Set<string>()
  const out: TreeEntry[] = []
  let found = prefix === ''
  for (const file of repo.files) {
    if (!file.path.startsWith(prefix)) continue
    found = true
    const rest = file.path.slice(prefix.length)
    const parts = rest.split('/')
    for (let i = 1; i < parts.length; i++) {
      if (!recursive && i > 1) break
      dirs.add(prefix + parts.slice(0, i).join('/'))
    }
    if (recursive || parts.length === 1) out.push(fileEntry(repo, file, expand))
  }
  if (!found) return undefined
  for (const dir of dirs) {
    out.push({
      type: 'directory',
      oid: createHash('sha1').update(`${repo.sha}:${dir}`).digest('hex'),
      size: 0,
      path: dir,
      ...(expand ? { lastCommit: lastCommit(repo) } : {}),
    })
  }
  return out.sort((a, b) => a.path.localeCompare(b.path))
}

/** The model info object (`/api/models/{repo}`), every field; `blobs` adds sizes and lfs to siblings. */
export function modelInfo(repo: HubRepo, blobs: boolean): Record<string, unknown> {
  const s = repo.spec
  const [author] = repo.id.split('/')
  const ggufs = repo.files.filter((f) => f.path.endsWith('.gguf'))
  return {
    _id: createHash('sha1').update(repo.id).digest('hex').slice(0, 24),
    id: repo.id,
    modelId: repo.id,
    author,
    sha: repo.sha,
    lastModified: s.lastModified ?? DEFAULT_DATE,
    createdAt: s.createdAt ?? DEFAULT_DATE,
    private: s.private ?? false,
    disabled: false,
    gated: s.gated ?? false,
    downloads: s.downloads ?? 0,
    likes: s.likes ?? 0,
    trendingScore: s.trendingScore ?? 0,
    tags: [...(s.tags ?? (ggufs.length > 0 ? ['gguf'] : []))],
    pipeline_tag: s.pipeline_tag ?? 'text-generation',
    library_name: s.library_name ?? (ggufs.length > 0 ? 'gguf' : undefined),
    cardData: {},
    spaces: [],
    siblings: repo.files.map((f) =>
      blobs
        ? {
            rfilename: f.path,
            size: f.content.length,
            blobId: f.oid,
            ...(f.lfs
              ? { lfs: { sha256: f.sha256, size: f.content.length, pointerSize: pointerSize(f) } }
              : {}),
          }
        : { rfilename: f.path },
    ),
    usedStorage: repo.files.reduce((a, f) => a + f.content.length, 0),
    ...(ggufs.length > 0 || s.gguf
      ? { gguf: s.gguf ?? { totalFileSize: ggufs.reduce((a, f) => a + f.content.length, 0) } }
      : {}),
  }
}

/** Keeps only the `expand` keys (plus `_id` and `id`, which the Hub always returns). */
export function pickExpanded(
  info: Record<string, unknown>,
  expand: readonly string[],
): Record<string, unknown> {
  if (expand.length === 0) return info
  const out: Record<string, unknown> = { _id: info._id, id: info.id }
  for (const key of expand) if (key in info) out[key] = info[key]
  return out
}

/** `POST /api/models/{repo}/paths-info/{rev}`: the entries of the paths that exist (files and folders). */
export function pathsInfo(repo: HubRepo, paths: readonly string[], expand: boolean): TreeEntry[] {
  return paths.flatMap((p) => {
    const file = repo.files.find((f) => f.path === p)
    if (file) return [fileEntry(repo, file, expand)]
    const dir = treeEntries(repo, '', true, expand)?.find((e) => e.type === 'directory' && e.path === p)
    return dir ? [dir] : []
  })
}

/** `GET /api/models/{repo}/refs`: one branch, `main`, at the repo's commit. */
export function refsOf(repo: HubRepo) {
  return {
    branches: [{ name: 'main', ref: 'refs/heads/main', targetCommit: repo.sha }],
    converts: [],
    tags: [],
  }
}

/** `GET /api/whoami-v2` for a user with a read token. */
export function whoami(name: string) {
  return {
    type: 'user',
    id: name,
    name,
    fullname: name,
    orgs: [],
    auth: { type: 'access_token', accessToken: { displayName: 'svc-tests', role: 'read' } },
  }
}
