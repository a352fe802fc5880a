#!/usr/bin/env node
/**
 * An OpenAI-compatible speech server over espeak-ng: the tts slot's host engine (the Kokoro container
 * is the other one). Plain JavaScript so it starts in milliseconds without a TypeScript loader.
 *
 *   node espeak-speech-server.mjs --host 127.0.0.1 --port 8880 [--espeak espeak-ng] [--ffmpeg ffmpeg]
 *
 * GET  /health             {"status":"ok"} once the voice list is read
 * GET  /v1/audio/voices    {"voices":[{id,name,…}],"variants":[…]}: the OpenAI names, then espeak-ng's
 * GET  /v1/models          {"object":"list","data":[{"id":"espeak-ng",…}]}
 * POST /v1/audio/speech    {model, input, voice, response_format?, speed?} → audio, streamed
 *
 * The text reaches espeak-ng on stdin (`--stdin`), never in argv. `voice`: an OpenAI name (mapped to
 * an espeak-ng voice and variant below), an espeak-ng voice (`en-us`, `fr-fr`, `English_(America)`),
 * optionally with a variant (`en-us+f3`), or `{"id": …}` of either; anything else is a 400. `speed`
 * 0.25–4 scales espeak-ng's 175 words per minute. `response_format`: wav is espeak-ng's own output
 * (22.05 kHz, written as it is synthesised, so its header carries no length); pcm is raw s16le mono
 * 24 kHz and mp3/opus (Ogg)/aac (ADTS)/flac are encoded at 24 kHz by ffmpeg, stdin to stdout. Errors
 * are OpenAI's `{"error":{message,type,param,code}}`. A client that goes away kills its processes.
 *
 * At most `--max-concurrent` syntheses run at once (default: the number of CPUs; each is one
 * espeak-ng and one ffmpeg process); `--max-queue` more wait (default 32). Beyond that a request is
 * answered at once with 503 and `Retry-After: 1`, so a burst cannot fork hundreds of processes.
 */
import { execFile, spawn } from 'node:child_process'
import { createServer } from 'node:http'
import { availableParallelism } from 'node:os'
import { parseArgs, promisify } from 'node:util'
import { SPEECH_FORMATS as FORMATS } from './speech-formats.mjs'

const MAX_INPUT_CHARS = 4096
const MAX_BODY_BYTES = 64 * 1024
const BASE_WPM = 175
/** OpenAI voice names → espeak-ng voice+variant, with the gender the OpenAI voice is heard as. */
const OPENAI_VOICES = {
  alloy: 'en-us+f3',
  ash: 'en-us+m3',
  ballad: 'en-gb+m2',
  cedar: 'en-gb+m6',
  coral: 'en-us+f4',
  echo: 'en-us',
  fable: 'en-gb-x-rp+m4',
  marin: 'en-gb+f2',
  nova: 'en-us+f2',
  onyx: 'en-us+m7',
  sage: 'en-gb+f3',
  shimmer: 'en-us+f5',
  verse: 'en-us+m5',
}

const { values: opts } = parseArgs({
  options: {
    host: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: '8880' },
    espeak: { type: 'string', default: 'espeak-ng' },
    ffmpeg: { type: 'string', default: 'ffmpeg' },
    'max-concurrent': { type: 'string', default: String(availableParallelism()) },
    'max-queue': { type: 'string', default: '32' },
  },
})
const MAX_CONCURRENT = Number(opts['max-concurrent'])
const MAX_QUEUE = Number(opts['max-queue'])
if (
  !Number.isInteger(MAX_CONCURRENT) ||
  MAX_CONCURRENT < 1 ||
  !Number.isInteger(MAX_QUEUE) ||
  MAX_QUEUE < 0
) {
  console.error('--max-concurrent must be an integer >= 1 and --max-queue an integer >= 0')
  process.exit(2)
}

class HttpError extends Error {
  constructor(status, message, param = null, code = null, headers = {}) {
    super(message)
    this.status = status
    this.param = param
    this.code = code
    this.headers = headers
  }
}

let active = 0
const waiting = []

/**
 * Waits for a synthesis slot; resolves with its release function (idempotent). Throws a 503 when
 * `MAX_QUEUE` requests already wait. A request whose client goes away while waiting leaves the queue.
 * The releaser hands its slot straight to the next waiter.
 */
async function takeSlot(res) {
  if (active < MAX_CONCURRENT) active++
  else {
    if (waiting.length >= MAX_QUEUE) {
      throw new HttpError(
        503,
        `the speech server is busy (${active} running, ${waiting.length} waiting); retry shortly`,
        null,
        'busy',
        { 'retry-after': '1' },
      )
    }
    await new Promise((resolve, reject) => {
      const gone = () => {
        waiting.splice(waiting.indexOf(entry), 1)
        reject(new HttpError(499, 'client went away'))
      }
      const entry = {
        resolve: () => {
          res.off('close', gone)
          resolve()
        },
      }
      waiting.push(entry)
      res.once('close', gone)
    }) // the releaser hands its slot over
  }
  let released = false
  return () => {
    if (released) return
    released = true
    const next = waiting.shift()
    if (next) next.resolve()
    else active--
  }
}

/** Rows of `espeak-ng --voices[=variant]`: Pty, Language, Age/Gender, VoiceName, File, Other. */
async function listVoices(kind) {
  const args = kind ? [`--voices=${kind}`] : ['--voices']
  const { stdout } = await promisify(execFile)(opts.espeak, args, { timeout: 10_000 })
  return stdout
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((cols) => cols.length >= 5)
    .map(([, language, ageGender, name, file]) => ({ language, gender: ageGender.split('/')[1], name, file }))
}

const voices = await listVoices().catch((error) => {
  console.error(`cannot run ${opts.espeak} --voices (${error.message}): install espeak-ng`)
  process.exit(1)
})
const variants = (await listVoices('variant'))
  .map((v) => v.file.replace(/^!v\//, ''))
  .filter((f) => /^[A-Za-z0-9_-]+$/.test(f))
// `--voices` shows names with `_` for spaces ("English_(America)"); `-v` wants the spaces back.
const voiceNames = new Map(
  voices.flatMap((v) => [
    [v.language, v.language],
    [v.name, v.name.replace(/_/g, ' ')],
    [v.name.replace(/_/g, ' '), v.name.replace(/_/g, ' ')],
  ]),
)
const variantNames = new Set(variants)
const ffmpegOk = await promisify(execFile)(opts.ffmpeg, ['-version'], { timeout: 10_000 }).then(
  () => true,
  () => false,
)

/** The espeak-ng `-v` value for a requested voice, or a 400. */
function resolveVoice(requested) {
  const id = typeof requested === 'object' && requested !== null ? requested.id : requested
  if (typeof id !== 'string' || id.length === 0)
    throw new HttpError(400, 'voice must be a voice name or {"id": …}', 'voice')
  if (Object.hasOwn(OPENAI_VOICES, id)) return OPENAI_VOICES[id]
  const [base, variant, extra] = id.split('+')
  const espeak = voiceNames.get(base)
  if (espeak && extra === undefined && (variant === undefined || variantNames.has(variant)))
    return variant === undefined ? espeak : `${espeak}+${variant}`
  throw new HttpError(
    400,
    `voice "${id.slice(0, 80)}" is not available: use ${Object.keys(OPENAI_VOICES).join(', ')}, or an espeak-ng voice such as en-us or en-gb+f3 (GET /v1/audio/voices)`,
    'voice',
    'voice_not_found',
  )
}

function parseSpeech(body) {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new HttpError(400, 'the body must be a JSON object')
  const { input, speed = 1, response_format: format = 'mp3', stream_format: streamFormat } = body
  if (typeof input !== 'string' || input.length === 0)
    throw new HttpError(400, 'input must be a non-empty string', 'input')
  if ([...input].length > MAX_INPUT_CHARS)
    throw new HttpError(400, `input is longer than ${MAX_INPUT_CHARS} characters`, 'input')
  if (typeof speed !== 'number' || !(speed >= 0.25 && speed <= 4))
    throw new HttpError(400, 'speed must be a number from 0.25 to 4.0', 'speed')
  if (!Object.hasOwn(FORMATS, format))
    throw new HttpError(
      400,
      `response_format must be one of ${Object.keys(FORMATS).join(', ')}`,
      'response_format',
    )
  if (FORMATS[format].ffmpeg && !ffmpegOk)
    throw new HttpError(
      400,
      `response_format ${format} needs ffmpeg, which this server lacks; use wav`,
      'response_format',
    )
  if (streamFormat !== undefined && streamFormat !== 'audio')
    throw new HttpError(400, 'only stream_format "audio" is supported', 'stream_format')
  const wpm = Math.max(80, Math.min(450, Math.round(BASE_WPM * speed)))
  return { input, voice: resolveVoice(body.voice), format, wpm }
}

function readJson(req) {
  return new Promise((resolve, reject) => {
    const chunks = []
    let size = 0
    req.on('data', (chunk) => {
      size += chunk.length
      // Too large: answer 413 at once and let the rest drain (closing now would lose the answer).
      if (size > MAX_BODY_BYTES) reject(new HttpError(413, `the body is larger than ${MAX_BODY_BYTES} bytes`))
      else chunks.push(chunk)
    })
    req.on('end', () => {
      if (size > MAX_BODY_BYTES) return
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')))
      } catch {
        reject(new HttpError(400, 'the body is not valid JSON'))
      }
    })
    req.on('error', reject)
  })
}

/** Keeps the last `max` characters a stream writes (for error messages). */
function tail(stream, max = 2000) {
  const state = { text: '' }
  stream.on('data', (d) => {
    state.text = (state.text + d.toString()).slice(-max)
  })
  return state
}

const running = new Set()

/**
 * espeak-ng (text on stdin) → [ffmpeg] → the response. Headers go out with the first audio byte, so a
 * synthesis that fails before producing any is still a JSON error; one that fails later cuts the
 * stream short. The processes die when the client goes away.
 */
function synthesise(job, res) {
  const espeak = spawn(
    opts.espeak,
    ['-v', job.voice, '-s', String(job.wpm), '-b', '1', '--stdout', '--stdin'],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  )
  const procs = [espeak]
  const errors = [tail(espeak.stderr)]
  let out = espeak.stdout
  const encode = FORMATS[job.format].ffmpeg
  if (encode) {
    const ffmpeg = spawn(
      opts.ffmpeg,
      // No probing (-probesize/-analyzeduration): ffmpeg would read 5 s of audio before its first byte.
      [
        '-hide_banner',
        '-loglevel',
        'error',
        '-probesize',
        '32',
        '-analyzeduration',
        '0',
        '-f',
        'wav',
        '-i',
        'pipe:0',
        ...encode,
        'pipe:1',
      ],
      {
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    )
    procs.push(ffmpeg)
    errors.push(tail(ffmpeg.stderr))
    espeak.stdout.pipe(ffmpeg.stdin)
    ffmpeg.stdin.on('error', () => {}) // ffmpeg gone: its exit reports why
    out = ffmpeg.stdout
  }
  let failed = false
  const kill = () => {
    for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL')
  }
  const fail = (error) => {
    if (failed) return
    failed = true
    kill()
    if (!res.headersSent) sendError(res, error)
    else res.destroy()
  }
  for (const p of procs) {
    running.add(p)
    p.on('close', () => running.delete(p))
    p.on('error', (error) => fail(new HttpError(500, `${p.spawnfile} could not run: ${error.message}`)))
  }
  res.on('close', () => {
    if (!res.writableFinished) kill()
  })
  espeak.stdin.on('error', () => {})
  espeak.stdin.end(job.input, 'utf8')
  out.once('data', (first) => {
    res.writeHead(200, { 'content-type': FORMATS[job.format].type, 'cache-control': 'no-store' })
    res.write(first)
    out.pipe(res)
  })
  const last = procs.at(-1)
  last.on('close', (code) => {
    if (code !== 0 || procs.some((p) => p.exitCode !== 0 && p.exitCode !== null)) {
      const why = errors
        .map((e) => e.text.trim())
        .filter(Boolean)
        .join('; ')
      fail(new HttpError(500, `speech synthesis failed${why ? `: ${why}` : ''}`))
    } else if (!res.headersSent) {
      fail(new HttpError(500, 'speech synthesis produced no audio'))
    }
  })
}

function sendJson(res, status, body, headers = {}) {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  })
  res.end(text)
}

function sendError(res, error) {
  const status = error instanceof HttpError ? error.status : 500
  const type = status >= 500 ? 'server_error' : 'invalid_request_error'
  sendJson(
    res,
    status,
    { error: { message: error.message, type, param: error.param ?? null, code: error.code ?? null } },
    error instanceof HttpError ? error.headers : {},
  )
}

const routes = {
  'GET /health': (_req, res) => sendJson(res, 200, { status: 'ok' }),
  'GET /v1/models': (_req, res) =>
    sendJson(res, 200, {
      object: 'list',
      data: [{ id: 'espeak-ng', object: 'model', created: 0, owned_by: 'espeak-ng' }],
    }),
  'GET /v1/audio/voices': (_req, res) =>
    sendJson(res, 200, {
      voices: [
        ...Object.entries(OPENAI_VOICES).map(([id, espeak]) => ({ id, name: id, espeak })),
        ...voices.map((v) => ({ id: v.language, name: v.name, language: v.language, gender: v.gender })),
      ],
      variants,
    }),
  'POST /v1/audio/speech': async (req, res) => {
    const job = parseSpeech(await readJson(req))
    const release = await takeSlot(res)
    res.once('close', release)
    synthesise(job, res)
  },
}

const server = createServer(async (req, res) => {
  const path = (req.url ?? '/').split('?')[0]
  const route = routes[`${req.method} ${path}`]
  try {
    if (route) return await route(req, res)
    const known = Object.keys(routes).find((r) => r.endsWith(` ${path}`))
    if (known) throw new HttpError(405, `use ${known.split(' ')[0]} for ${path}`)
    throw new HttpError(404, `no route ${req.method} ${path}`)
  } catch (error) {
    if (!res.headersSent) sendError(res, error)
    else res.destroy()
  }
})

function shutdown() {
  server.close()
  for (const p of running) p.kill('SIGKILL')
  setTimeout(() => process.exit(0), 1_000).unref()
}
process.on('SIGTERM', shutdown)
process.on('SIGINT', shutdown)

server.listen(Number(opts.port), opts.host, () => {
  const { address, port } = server.address()
  console.log(
    `espeak speech server listening at http://${address}:${port} (${voices.length} voices, ffmpeg ${ffmpegOk ? 'found' : 'missing: wav only'})`,
  )
})
