/**
 * Any audio ffmpeg reads (WAV, MP3, Ogg/Opus, WebM, FLAC, M4A, …) as mono float32 PCM at 16 kHz: what
 * the VAD and whisper take. ffmpeg is a Debian package (setup.sh installs it), run as a child process.
 */
import { spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SvcError } from '@svc/core'

/** The sample rate `decodeAudio` answers in (whisper's and Silero VAD's). */
export const DECODE_SAMPLE_RATE = 16000

export interface DecodeAudioOptions {
  /** Aborting kills ffmpeg; the promise then rejects with the signal's reason. */
  signal?: AbortSignal
  /** The ffmpeg program (default: `ffmpeg` on `PATH`). */
  ffmpeg?: string
}

/**
 * Decodes `bytes` to mono float32 samples (−1..1) at 16 kHz. The upload goes through a temporary
 * file, not a pipe, because some containers (an M4A with its index at the end) cannot be read from
 * a pipe; the file is removed before the promise settles.
 *
 * Rejects with 400 `audio.unreadable` when ffmpeg finds no audio in it (the message carries
 * ffmpeg's own reason), and with 500 `internal.error` when ffmpeg cannot be run at all.
 */
export async function decodeAudio(
  bytes: Uint8Array,
  options: DecodeAudioOptions = {},
): Promise<Float32Array> {
  options.signal?.throwIfAborted()
  const dir = await mkdtemp(join(tmpdir(), 'svc-audio-'))
  try {
    const input = join(dir, 'upload')
    await writeFile(input, bytes)
    const raw = await runFfmpeg(options.ffmpeg ?? 'ffmpeg', input, options.signal)
    if (raw.byteLength < 4) throw new SvcError('audio.unreadable', 'the upload holds no audio samples')
    // Copy into a fresh, aligned buffer: a Buffer's offset into its pool need not be a multiple of 4.
    const samples = new Float32Array(raw.byteLength >> 2)
    new Uint8Array(samples.buffer).set(raw.subarray(0, samples.length * 4))
    return samples
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

function runFfmpeg(program: string, input: string, signal: AbortSignal | undefined): Promise<Buffer> {
  const args = ['-hide_banner', '-loglevel', 'error', '-nostdin', '-i', input]
  args.push('-vn', '-ac', '1', '-ar', String(DECODE_SAMPLE_RATE), '-f', 'f32le', 'pipe:1')
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    const chunks: Buffer[] = []
    let stderr = ''
    const onAbort = () => {
      child.kill('SIGKILL')
      reject(signal?.reason)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk))
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-1000)
    })
    child.once('error', (error) => {
      signal?.removeEventListener('abort', onAbort)
      reject(new SvcError('internal.error', `ffmpeg could not run to decode audio: ${error.message}`))
    })
    child.once('close', (code) => {
      signal?.removeEventListener('abort', onAbort)
      if (signal?.aborted) return
      if (code === 0) return resolve(Buffer.concat(chunks))
      const reason = stderr.trim().split('\n').at(-1) || `ffmpeg exited with ${code}`
      reject(new SvcError('audio.unreadable', `the upload is not audio svc can read: ${reason}`))
    })
  })
}
