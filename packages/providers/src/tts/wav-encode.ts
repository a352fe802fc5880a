/**
 * Turns a WAV response into the `response_format` a speech client asked for, with ffmpeg (stdin to
 * stdout, streamed), the same encodings as svc's espeak-ng engine: mp3, opus (Ogg), aac (ADTS), flac
 * and pcm (s16le), all mono 24 kHz; wav passes through untouched. For engines that always answer WAV
 * (Chatterbox ignores `response_format`).
 */
import { spawn } from 'node:child_process'
import { Readable } from 'node:stream'
import { SvcError } from '@svc/core'
// The table is shared with the espeak-ng server, which plain node runs from bin/ (see its header).
import { SPEECH_FORMATS } from '../../bin/speech-formats.mjs'

export type SpeechFormat = keyof typeof SPEECH_FORMATS

/**
 * ffmpeg's input options for a WAV on stdin: no probing. By default ffmpeg reads up to 5 s of audio
 * (`-analyzeduration`) before it encodes a byte, which held a streamed answer back until the end
 * of a short text; the WAV header says all there is to know.
 */
export const WAV_PIPE_INPUT = ['-probesize', '32', '-analyzeduration', '0', '-f', 'wav'] as const

export function isSpeechFormat(format: string): format is SpeechFormat {
  return Object.hasOwn(SPEECH_FORMATS, format)
}

/**
 * The audio of `wav` in `format` as a streamed Response. ffmpeg is killed when `signal` aborts (the
 * client went away) or the body is cancelled. Rejects with 500 `internal.error` when ffmpeg cannot
 * run, and with 502 `upstream.error` when it finds no audio in what the engine sent.
 */
export async function encodeWavResponse(options: {
  wav: ReadableStream<Uint8Array>
  format: SpeechFormat
  signal: AbortSignal
  ffmpeg?: string
}): Promise<Response> {
  const { type, ffmpeg: args } = SPEECH_FORMATS[options.format]
  const headers = { 'content-type': type, 'cache-control': 'no-store' }
  if (!args) return new Response(options.wav, { headers })
  const child = spawn(
    options.ffmpeg ?? 'ffmpeg',
    ['-hide_banner', '-loglevel', 'error', ...WAV_PIPE_INPUT, '-i', 'pipe:0', ...args, 'pipe:1'],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  )
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  }
  options.signal.addEventListener('abort', kill, { once: true })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-2000)
  })
  child.stdin.on('error', () => {}) // ffmpeg gone: its exit says why
  Readable.fromWeb(options.wav as import('node:stream/web').ReadableStream<Uint8Array>)
    .on('error', kill)
    .pipe(child.stdin)
  // Headers go out with the first encoded byte, so a failure before it is still a clean error.
  const first = await new Promise<Buffer | undefined>((resolve, reject) => {
    child.once('error', (error) =>
      reject(
        new SvcError('internal.error', `ffmpeg could not run to encode ${options.format}: ${error.message}`),
      ),
    )
    child.stdout.once('data', (chunk: Buffer) => resolve(chunk))
    child.once('close', (code) =>
      code === 0
        ? resolve(undefined)
        : reject(
            new SvcError(
              'upstream.error',
              `the speech engine's WAV could not be encoded as ${options.format}: ${stderr.trim() || `ffmpeg exited with ${code}`}`,
              { status: 502 },
            ),
          ),
    )
  })
  child.stdout.pause()
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (first) controller.enqueue(first)
      child.stdout.on('data', (chunk: Buffer) => controller.enqueue(chunk))
      child.stdout.on('end', () => controller.close())
      child.stdout.on('error', (error) => controller.error(error))
      child.stdout.resume()
    },
    cancel: kill,
  })
  return new Response(body, { headers })
}
