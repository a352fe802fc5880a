/**
 * Real speech with pauses of known length, for the voice tests (streaming transcription, the VAD,
 * the Realtime API): each sentence spoken by espeak-ng on its own, decoded by ffmpeg to 16 kHz mono,
 * and joined with silences of the length asked for. Where each sentence's sound really starts and
 * ends is measured on its samples, so a test can check a detector's boundaries against the truth.
 */
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const exec = promisify(execFile)
const RATE = 16000

/** The spoken audio and where its speech is. */
export interface SpokenPauses {
  /** 16 kHz mono float32 samples of the whole recording. */
  samples: Float32Array
  /** The same as a 16-bit mono WAV file (16 kHz). */
  wav: Uint8Array<ArrayBuffer>
  /** Per sentence, in order: where its sound starts and ends, in ms from the start. */
  spans: { startMs: number; endMs: number }[]
  durationMs: number
}

/**
 * Speaks `sentences` with `pauseMs` of silence after each one but the last (and `leadMs` before the
 * first). Needs `espeak-ng` and `ffmpeg` on PATH (check with `programAvailable`).
 */
export async function speakWithPauses(
  sentences: readonly string[],
  options: { pauseMs?: number; leadMs?: number; voice?: string } = {},
): Promise<SpokenPauses> {
  const pause = Math.round(((options.pauseMs ?? 1200) * RATE) / 1000)
  const lead = Math.round(((options.leadMs ?? 300) * RATE) / 1000)
  const dir = await mkdtemp(join(tmpdir(), 'svc-spoken-'))
  try {
    const parts: Float32Array[] = [new Float32Array(lead)]
    const spans: SpokenPauses['spans'] = []
    let at = lead
    for (const [i, sentence] of sentences.entries()) {
      const wav = join(dir, `s${i}.wav`)
      await exec('espeak-ng', ['-v', options.voice ?? 'en', '-w', wav, sentence])
      const raw = join(dir, `s${i}.f32`)
      await exec('ffmpeg', [
        '-hide_banner',
        '-loglevel',
        'error',
        '-i',
        wav,
        '-ac',
        '1',
        '-ar',
        '16000',
        '-f',
        'f32le',
        raw,
      ])
      const bytes = await readFile(raw)
      const pcm = new Float32Array(bytes.byteLength >> 2)
      new Uint8Array(pcm.buffer).set(bytes.subarray(0, pcm.length * 4))
      const loud = (x: number | undefined) => Math.abs(x ?? 0) > 0.01
      const first = pcm.findIndex(loud)
      let last = pcm.length - 1
      while (last > 0 && !loud(pcm[last])) last--
      spans.push({ startMs: ((at + Math.max(first, 0)) * 1000) / RATE, endMs: ((at + last) * 1000) / RATE })
      parts.push(pcm)
      at += pcm.length
      if (i < sentences.length - 1) {
        parts.push(new Float32Array(pause))
        at += pause
      }
    }
    const samples = new Float32Array(at)
    let offset = 0
    for (const part of parts) {
      samples.set(part, offset)
      offset += part.length
    }
    return { samples, wav: wav16(samples), spans, durationMs: (at * 1000) / RATE }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

function wav16(samples: Float32Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(44 + samples.length * 2)
  const view = new DataView(out.buffer)
  const tag = (at: number, text: string) => {
    for (let i = 0; i < 4; i++) view.setUint8(at + i, text.charCodeAt(i))
  }
  tag(0, 'RIFF')
  view.setUint32(4, out.length - 8, true)
  tag(8, 'WAVE')
  tag(12, 'fmt ')
  for (const [at, value, bytes] of [
    [16, 16, 4],
    [20, 1, 2],
    [22, 1, 2],
    [24, RATE, 4],
    [28, RATE * 2, 4],
    [32, 2, 2],
    [34, 16, 2],
  ] as const) {
    if (bytes === 4) view.setUint32(at, value, true)
    else view.setUint16(at, value, true)
  }
  tag(36, 'data')
  view.setUint32(40, samples.length * 2, true)
  for (let i = 0; i < samples.length; i++) {
    const s = Math.max(-1, Math.min(1, samples[i] as number))
    view.setInt16(44 + i * 2, Math.round(s < 0 ? s * 32768 : s * 32767), true)
  }
  return out
}
