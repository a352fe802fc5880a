/**
 * Resumable, verified downloads. Bytes go to `<dest>.part`; an interrupted download resumes with
 * `Range`; the sha256 (when known) covers the whole file, resumed part included; only a complete,
 * verified file is renamed to `dest`. A mismatch deletes the part: nothing that looks complete stays.
 */
import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { mkdir, open, rename, rm, stat } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { PullProgress } from '@svc/core'
import { syncDir } from '@svc/core/node'

export interface DownloadOptions {
  url: string
  dest: string
  sha256?: string
  signal: AbortSignal
  onProgress?: (p: PullProgress) => void
  /** Minimum time between progress reports (ms). Default 200. */
  progressEveryMs?: number
}

export class DownloadError extends Error {}

export async function downloadFile(options: DownloadOptions): Promise<{ bytes: number; sha256: string }> {
  const { url, dest, signal } = options
  const part = `${dest}.part`
  await mkdir(dirname(dest), { recursive: true })
  let offset = await sizeOf(part)
  const hash = createHash('sha256')
  const headers: Record<string, string> = {}
  if (offset > 0) headers.range = `bytes=${offset}-`

  let res: Response
  try {
    res = await fetch(url, { headers, signal, redirect: 'follow' })
  } catch (error) {
    if (signal.aborted) throw error
    throw new DownloadError(`pull of ${url} failed: ${causeOf(error)}`)
  }
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
      await fh.write(chunk)
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
  const cause = (error as { cause?: { code?: string; message?: string } }).cause
  return cause?.code ?? cause?.message ?? (error as Error).message ?? String(error)
}
