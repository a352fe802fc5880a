import { createHash, randomBytes } from 'node:crypto'
import { mkdtemp, readdir, readFile, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { serveFiles } from '@svc/testing'
import { describe, expect, it } from 'vitest'
import { downloadFile } from '../src/models/download'
import { freePort } from '../src/runtimes/free-port'

const body = randomBytes(300_000)
const sha = createHash('sha256').update(body).digest('hex')

describe('downloadFile', () => {
  it('resumes an interrupted download with Range and verifies the whole file', async () => {
    await using server = await serveFiles({ '/m.gguf': body })
    const dir = await mkdtemp(join(tmpdir(), 'svc-dl-'))
    const dest = join(dir, 'm.gguf')
    server.cutNextAfter(100_000)
    const first = downloadFile({
      url: `${server.url}/m.gguf`,
      dest,
      sha256: sha,
      signal: AbortSignal.timeout(10_000),
    })
    await expect(first).rejects.toThrow(/resumes on the next load/)
    expect(await readdir(dir)).toEqual(['m.gguf.part'])
    expect((await stat(`${dest}.part`)).size).toBeGreaterThan(0) // what arrived before the cut is kept

    const progress: number[] = []
    const done = await downloadFile({
      url: `${server.url}/m.gguf`,
      dest,
      sha256: sha,
      signal: AbortSignal.timeout(10_000),
      onProgress: (p) => progress.push(p.done),
    })
    expect(done).toEqual({ bytes: body.length, sha256: sha })
    expect(server.requests.at(-1)?.range).toMatch(/^bytes=\d+-$/)
    expect(progress[0]).toBeGreaterThan(0) // started from the part, not from zero
    expect(progress.at(-1)).toBe(body.length)
    expect((await readFile(dest)).equals(body)).toBe(true)
    expect(await readdir(dir)).toEqual(['m.gguf'])
  })

  it('deletes the download on a checksum mismatch, leaving nothing that looks complete', async () => {
    await using server = await serveFiles({ '/m.gguf': body })
    const dir = await mkdtemp(join(tmpdir(), 'svc-dl-'))
    const wrong = 'f'.repeat(64)
    await expect(
      downloadFile({
        url: `${server.url}/m.gguf`,
        dest: join(dir, 'm.gguf'),
        sha256: wrong,
        signal: AbortSignal.timeout(10_000),
      }),
    ).rejects.toThrow(/checksum mismatch \(expected sha256 f{64}, got [0-9a-f]{64}\)/)
    expect(await readdir(dir)).toEqual([])
  })

  it('names the URL and the HTTP status when the server refuses', async () => {
    await using server = await serveFiles({})
    const dir = await mkdtemp(join(tmpdir(), 'svc-dl-'))
    await expect(
      downloadFile({
        url: `${server.url}/missing.gguf`,
        dest: join(dir, 'x.gguf'),
        signal: AbortSignal.timeout(10_000),
      }),
    ).rejects.toThrow(`pull of ${server.url}/missing.gguf failed: HTTP 404`)
  })

  it('names the cause when nothing listens', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-dl-'))
    const url = `http://127.0.0.1:${await freePort()}/x.gguf`
    await expect(
      downloadFile({ url, dest: join(dir, 'x.gguf'), signal: AbortSignal.timeout(10_000) }),
    ).rejects.toThrow(`pull of ${url} failed: ECONNREFUSED`)
  })

  it('says the machine looks offline, and what to do instead, when the host does not resolve', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-dl-'))
    const url = 'http://svc-model-mirror.invalid/m.gguf' // .invalid never resolves (RFC 2606)
    await expect(
      downloadFile({ url, dest: join(dir, 'm.gguf'), signal: AbortSignal.timeout(10_000) }),
    ).rejects.toThrow(
      /^pull of http:\/\/svc-model-mirror\.invalid\/m\.gguf failed: cannot reach svc-model-mirror\.invalid \((ENOTFOUND|EAI_AGAIN)\): this machine looks offline; load a local \.gguf by path instead$/,
    )
    expect(await readdir(dir)).toEqual([])
  })
})
