/**
 * Pulls the files one model needs (the weights and, for vision models, the projector) one after the
 * other, reporting a single progress figure for all of them. One at a time on purpose: each file
 * resumes on its own (`downloadFile`), and a failure names the file that failed while the ones
 * before it stay complete on disk, so the next load fetches only what is still missing.
 */
import type { PullProgress } from '@svc/core'
import { downloadFile } from './download'

export interface PullFile {
  url: string
  dest: string
  sha256?: string
  /** The catalogue's size, used as this file's total until its download says the real one. */
  expectedBytes?: number
  /** Headers for the URL's own origin only (see `DownloadOptions.originHeaders`). */
  originHeaders?: Record<string, string>
}

/**
 * Downloads `files` in order. Progress is the sum over all the model's files: `done` counts
 * `onDisk` (bytes of its files already complete, not fetched again), the files finished and the one
 * in flight; `total` adds `onDisk`, each file's real size once its response said so and the expected
 * size before that, and is null while any file's size is unknown.
 * Resolves with the bytes of each file; rejects with the first failure (earlier files stay done).
 */
export async function pullFiles(
  files: readonly PullFile[],
  onProgress: (p: PullProgress) => void,
  signal: AbortSignal,
  onDisk = 0,
): Promise<number[]> {
  const done = files.map(() => 0)
  const totals: (number | null)[] = files.map((f) => f.expectedBytes ?? null)
  const report = () => {
    const total = totals.every((t) => t !== null)
      ? totals.reduce<number>((a, t) => a + (t ?? 0), onDisk)
      : null
    onProgress({ done: done.reduce((a, b) => a + b, onDisk), total })
  }
  const sizes: number[] = []
  for (const [i, file] of files.entries()) {
    const result = await downloadFile({
      url: file.url,
      dest: file.dest,
      signal,
      ...(file.sha256 ? { sha256: file.sha256 } : {}),
      ...(file.originHeaders ? { originHeaders: file.originHeaders } : {}),
      onProgress: (p) => {
        done[i] = p.done
        if (p.total !== null) totals[i] = p.total
        report()
      },
    })
    done[i] = result.bytes
    totals[i] = result.bytes
    sizes.push(result.bytes)
  }
  report()
  return sizes
}

/** The `PullFile` for `url` to `dest`, with the checksum and size the catalogue knows. */
export function pullFile(url: string, dest: string, facts: { sha256?: string; size?: number }): PullFile {
  return {
    url,
    dest,
    ...(facts.sha256 ? { sha256: facts.sha256 } : {}),
    ...(facts.size !== undefined ? { expectedBytes: facts.size } : {}),
  }
}
