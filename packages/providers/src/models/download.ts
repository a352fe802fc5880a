/**
 * Resumable, verified downloads. Bytes go to `<dest>.part`; an interrupted download resumes with
 * `Range`; the sha256 (when known) covers the whole file, resumed part included; only a complete,
 * verified file is renamed to `dest`. A mismatch deletes the part: nothing that looks complete stays.
 * A failure to write (the disk is full) keeps the part, so the next load resumes once there is room.
 *
 * Redirects are followed by hand: at most `MAX_REDIRECTS`, and only to http(s) URLs (a mirror may
 * redirect to a CDN; it may not send svc to `file:` or anywhere else, nor around in circles).
 */
import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { mkdir, open, rename, rm, stat } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { PullProgress } from '@svc/core'
import { syncDir } from '@svc/core/node'
import { looksOffline, OFFLINE_WAY_ON } from './offline'

export interface DownloadOptions {
  url: string
  dest: string
  sha256?: string
  signal: AbortSignal
  onProgress?: (p: PullProgress) => void
  /** Minimum time between progress reports (ms). Default 200. */
  progressEveryMs?: number
  /**
   * Headers for `url`'s own origin only (the Hub's `Authorization`): never sent on after a redirect
   * to another origin (the Hub's CDN), whatever fetch would do.
   */
  originHeaders?: Record<string, string>
}

export class DownloadError extends Error {}

export const MAX_REDIRECTS = 5
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308])

export async function downloadFile(options: DownloadOptions): Promise<{ bytes: number; sha256: string }> {
  const { url, dest, signal } = options
  const part = `${dest}.part`
  await mkdir(dirname(dest), { recursive: true })
  let offset = await sizeOf(part)
  const hash = createHash('sha256')
  const headers: Record<string, string> = {}
  if (offset > 0) headers.range = `bytes=${offset}-`

  const res = await fetchFollowing(url, headers, signal, options.originHeaders)
  if (res.status === 416 && offset > 0) {
    // The part already holds the whole file (we were cut right before the rename).
    await res.body?.cancel()
    return finish(options, part, await hashFile(part, hash), offset)
  }
  if (res.status !== 200 && res.status !== 206) {
    await res.body?.cancel()
    throw new DownloadError(`pull of ${url} failed: HTTP ${res.status} ${res.statusText}`)
  }
  if (res.status === 200 && offset > 0) offset = 0 // the server ignored Range: start over
  if (offset > 0) await hashFile(part, hash)
  const length = Number(res.headers.get('content-length') ?? Number.NaN)
  const total = Number.isFinite(length) ? offset + length : null

  const fh = await open(part, offset > 0 ? 'a' : 'w')
  let done = offset
  let lastReport = 0
  const every = options.progressEveryMs ?? 200
  options.onProgress?.({ done, total })
  try {
    if (!res.body) throw new DownloadError(`pull of ${url} failed: empty response`)
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      // A write may be short when the disk fills up: write the rest, so the part stays an exact prefix.
      for (let at = 0; at < chunk.byteLength; ) {
        const { bytesWritten } = await fh.write(chunk, at)
        if (bytesWritten === 0) throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' })
        at += bytesWritten
      }
      hash.update(chunk)
      done += chunk.byteLength
      const now = Date.now()
      if (now - lastReport >= every) {
        lastReport = now
        options.onProgress?.({ done, total })
      }
    }
    await fh.sync()
  } catch (error) {
    if (signal.aborted) throw error
    throw new DownloadError(
      `pull of ${url} failed after ${done} bytes: ${causeOf(error)} (the download resumes on the next load)`,
    )
  } finally {
    await fh.close()
  }
  if (total !== null && done !== total) {
    throw new DownloadError(
      `pull of ${url} failed: got ${done} of ${total} bytes (the download resumes on the next load)`,
    )
  }
  options.onProgress?.({ done, total: total ?? done })
  return finish(options, part, hash.digest('hex'), done)
}

/** GET `url`, following up to `MAX_REDIRECTS` redirects to http(s) URLs; the final response. */
async function fetchFollowing(
  url: string,
  headers: Record<string, string>,
  signal: AbortSignal,
  originHeaders: Record<string, string> = {},
): Promise<Response> {
  const origin = originOf(url)
  let target = url
  for (let hops = 0; ; hops++) {
    let res: Response
    const sent = originOf(target) === origin ? { ...headers, ...originHeaders } : headers
    try {
      res = await fetch(target, { headers: sent, signal, redirect: 'manual' })
    } catch (error) {
      if (signal.aborted) throw error
      const code = (error as { cause?: { code?: string } }).cause?.code
      throw new DownloadError(
        looksOffline(code)
          ? `pull of ${url} failed: cannot reach ${new URL(target).host} (${code}): this machine looks offline; ${OFFLINE_WAY_ON}`
          : `pull of ${url} failed: ${causeOf(error)}`,
      )
    }
    if (!REDIRECT_STATUSES.has(res.status)) return res
    await res.body?.cancel()
    const location = res.headers.get('location')
    let next: URL | undefined
    try {
      next = location ? new URL(location, target) : undefined
    } catch {
      next = undefined
    }
    if (!next) {
      throw new DownloadError(`pull of ${url} failed: HTTP ${res.status} without a valid Location`)
    }
    if (next.protocol !== 'http:' && next.protocol !== 'https:') {
      throw new DownloadError(`pull of ${url} failed: refused a redirect to a ${next.protocol} URL`)
    }
    if (hops >= MAX_REDIRECTS) {
      throw new DownloadError(`pull of ${url} failed: more than ${MAX_REDIRECTS} redirects`)
    }
    target = next.href
  }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin
  } catch {
    return '' // fetch reports the bad URL
  }
}

async function finish(options: DownloadOptions, part: string, digest: string, bytes: number) {
  if (options.sha256 && digest !== options.sha256.toLowerCase()) {
    await rm(part, { force: true })
    throw new DownloadError(
      `pull of ${options.url} failed: checksum mismatch (expected sha256 ${options.sha256}, got ${digest}); the download was deleted`,
    )
  }
  await rename(part, options.dest)
  await syncDir(dirname(options.dest))
  return { bytes, sha256: digest }
}

/** The sha256 (hex) of the file at `path`, read as a stream. */
export function sha256OfFile(path: string): Promise<string> {
  return hashFile(path, createHash('sha256'))
}

async function hashFile(path: string, hash: ReturnType<typeof createHash>): Promise<string> {
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer)
  return hash.copy().digest('hex')
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size
  } catch {
    return 0
  }
}

function causeOf(error: unknown): string {
  const e = error as { code?: string; cause?: { code?: string; message?: string } }
  if (e.code === 'ENOSPC' || e.cause?.code === 'ENOSPC') return 'the disk is full (ENOSPC)'
  if (e.code === 'EDQUOT') return 'the disk quota is exhausted (EDQUOT)'
  return e.cause?.code ?? e.cause?.message ?? (error as Error).message ?? String(error)
}
