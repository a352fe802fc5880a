/**
 * `audio`: how soon a voice client hears or reads something, through svc and from the engines alone.
 *
 * - speech: a 24-sentence text as `pcm` from svc (streamed by sentence) and from svc's espeak-ng
 *   speech server alone (the whole text in one synthesis; svc's tts slot is a remote slot on that same
 *   server): time to the first audio byte and to the last; and the engine's time for the first
 *   sentence alone, the least a sentence stream can wait.
 * - transcription: three sentences spoken with 1.2 s pauses (espeak-ng, SSML breaks) to svc with
 *   `stream=true` (VAD, then each segment on the stt slot) and to that slot's whisper-server alone
 *   (the whole file): time to the first `transcript.text.delta`, and to the whole answer. Needs
 *   whisper-server (`svc engines build`; else not measured).
 *
 * BENCH_AUDIO_RUNS (default 1) measured runs each, medians; speech has one unmeasured warm-up first.
 */
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { findEngine } from '@svc/engines'
import { ESPEAK_SPEECH_SERVER, WHISPER_INFERENCE_PATH } from '@svc/providers'
import { startApiWithConfig, startServerProcess, writeTinyWhisper } from '@svc/testing'
import type { Goal, SectionResult } from './goals'
import { fmt, median } from './stats'

const RUNS = Number(process.env.BENCH_AUDIO_RUNS ?? 1)
const TEXT = Array.from({ length: 24 }, (_, i) => `This is sentence ${i + 1} of a text svc reads aloud.`)
const SPOKEN = [
  'The quick brown fox jumps over the lazy dog.',
  'Streaming speech arrives in pieces.',
  'This is the third sentence.',
]
const NONE = { first: Number.NaN, last: Number.NaN }
type Timing = typeof NONE

/** POSTs JSON or a form; ms to the first chunk (holding `marker`, when given) and to the end. */
async function timed(url: string, body: object, marker?: string): Promise<Timing> {
  const sent = performance.now()
  const form = body instanceof FormData
  const res = await fetch(url, {
    method: 'POST',
    body: form ? body : JSON.stringify(body),
    headers: form ? {} : { 'content-type': 'application/json' },
  })
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}: ${(await res.text()).slice(0, 300)}`)
  if (marker && !res.headers.get('content-type')?.startsWith('text/event-stream')) {
    await res.body?.cancel() // this build does not stream transcriptions
    return NONE
  }
  let first = Number.NaN
  const decoder = new TextDecoder()
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>)
    if (Number.isNaN(first) && (!marker || decoder.decode(chunk).includes(marker)))
      first = performance.now() - sent
  return { first, last: performance.now() - sent }
}

async function measure(run: () => Promise<Timing>, warmUp: boolean): Promise<Timing> {
  if (warmUp) await run()
  const runs: Timing[] = []
  for (let i = 0; i < RUNS; i++) runs.push(await run())
  return { first: median(runs.map((r) => r.first)), last: median(runs.map((r) => r.last)) }
}

const ratio = (measure: string, value: number, target: number): Goal => ({
  measure,
  value: Number.isFinite(value) ? `${fmt(value, 2)}×` : 'not measured',
  goal: `≤ ${target}×`,
  met: Number.isFinite(value) ? value <= target : undefined,
})

export async function audioSection(log: (line: string) => void): Promise<SectionResult> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-audio-'))
  const engine = await startServerProcess({
    command: process.execPath,
    args: [ESPEAK_SPEECH_SERVER, '--host', '127.0.0.1', '--port', '0'],
    ready: /listening at (http:\/\/[0-9.:]+)/,
    what: 'espeak speech server',
    timeoutMs: 30_000,
  })
  const api = await startApiWithConfig({
    built: true,
    slots: {
      tts: `enabled = true\nprovider = "tts"\nruntime = "remote"\nurl = "${engine.url}"\n`,
      // No temperature fallback: random weights fail whisper's checks and it decodes each window up
      // to six times; the bench compares svc with the engine, not the fallback's luck.
      stt: 'args = ["-nf"]\n',
    },
  })
  try {
    const load = (slot: string, body: object) => timed(`${api.url}/api/slots/${slot}/load?wait=true`, body)
    await load('tts', {}) // a remote slot loads the model its remote serves
    const speech = (base: string, input: string) => () =>
      timed(`${base}/v1/audio/speech`, { model: 'tts', voice: 'alloy', input, response_format: 'pcm' })
    log('  speech: svc, the engine alone, its first sentence alone…')
    const svcSpeech = await measure(speech(api.url, TEXT.join(' ')), true)
    const engineSpeech = await measure(speech(engine.url, TEXT.join(' ')), true)
    const oneSentence = await measure(speech(engine.url, TEXT[0]!), true)
    let svcStt = NONE
    let engineStt = NONE
    let engineFirst = NONE
    if (findEngine('whisper-server', process.env)) {
      log('  transcription: svc with stream=true, then whisper-server alone…')
      await load('stt', { model: (await writeTinyWhisper(join(dir, 'tiny-whisper.bin'))).path })
      const slot: { upstream?: { base?: string } } = await (await fetch(`${api.url}/api/slots/stt`)).json()
      const wavPath = join(dir, 'spoken.wav')
      const ssml = `<speak>${SPOKEN.join('<break time="1200ms"/>')}</speak>`
      await promisify(execFile)('espeak-ng', ['-m', '-w', wavPath, ssml])
      const wav = new Blob([await readFile(wavPath)], { type: 'audio/wav' })
      const form = (fields: Record<string, string>) => {
        const f = new FormData()
        for (const [k, v] of Object.entries({ ...fields, file: wav })) f.set(k, v)
        return f
      }
      const streamed = form({ model: 'stt', stream: 'true' })
      const url = `${api.url}/v1/audio/transcriptions`
      // Warmed like speech: the first stream=true request also loads the VAD's model (1–9 s here),
      // once per process, which a running server has done long before.
      svcStt = await measure(() => timed(url, streamed, 'transcript.text.delta'), true)
      const alone = new URL(WHISPER_INFERENCE_PATH, slot.upstream?.base ?? 'http://127.0.0.1:9').href
      engineStt = await measure(() => timed(alone, form({ response_format: 'json' })), false)
      // The engine on the first sentence alone: the least a segment-by-segment stream can wait.
      const firstPath = join(dir, 'first.wav')
      await promisify(execFile)('espeak-ng', ['-w', firstPath, SPOKEN[0]!])
      const first = new FormData()
      first.set('response_format', 'json')
      first.set('file', new Blob([await readFile(firstPath)], { type: 'audio/wav' }))
      engineFirst = await measure(() => timed(alone, first), false)
    }
    const ms = (x: number) => (Number.isFinite(x) ? `${fmt(x, 0)} ms` : 'not measured')
    const goals = (
      [
        [
          'speech: svc first audio byte / engine alone, all of a 24-sentence text',
          svcSpeech.first,
          engineSpeech.last,
          0.5,
        ],
        [
          'speech: svc first audio byte / engine alone, its first sentence',
          svcSpeech.first,
          oneSentence.last,
          1.5,
        ],
        ['speech: svc last audio byte / engine alone, all of the text', svcSpeech.last, engineSpeech.last, 2],
        [
          'transcription: svc first delta (stream=true) / whisper-server alone, its first sentence',
          svcStt.first,
          engineFirst.last,
          1.5,
        ],
      ] as const
    ).map(([measure, svc, alone, target]) => ratio(measure, svc / alone, target))
    const row = (what: string, t: Timing) => `| ${what} | ${ms(t.first)} | ${ms(t.last)} |`
    const markdown = [
      '## audio: first audio byte and first transcript delta',
      '',
      `Median of ${RUNS} run(s). Speech: ${TEXT.length} sentences as pcm from svc's espeak-ng speech server. Transcription: ${SPOKEN.length} sentences with 1.2 s pauses, the tiny random-weight whisper model (it transcribes gibberish, each segment up to its token limit, so a segment costs about what the whole file does: compare the first delta with the first sentence alone).`,
      '',
      '| what | first byte / delta | last byte / answer |',
      '|---|---|---|',
      row('speech through svc (streamed by sentence)', svcSpeech),
      row('speech, engine alone, whole text', engineSpeech),
      row('speech, engine alone, first sentence', oneSentence),
      row('transcription through svc (stream=true)', svcStt),
      row('transcription, whisper-server alone, whole file', { first: Number.NaN, last: engineStt.last }),
      row('transcription, whisper-server alone, first sentence', {
        first: Number.NaN,
        last: engineFirst.last,
      }),
      '',
    ].join('\n')
    return { markdown, goals }
  } finally {
    await api[Symbol.asyncDispose]()
    await engine[Symbol.asyncDispose]()
    await rm(dir, { recursive: true, force: true })
  }
}
