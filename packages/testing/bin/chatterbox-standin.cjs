#!/usr/bin/env node
// chatterbox-standin: speaks the HTTP protocol of Chatterbox TTS API (github.com/travisvn/chatterbox-tts-api,
// the voice-cloning server svc runs in a container), for tests on machines that cannot run the real one
// (PyTorch, model weights from Hugging Face, ideally a GPU). What it follows, from the server's source:
//
//   configuration   env PORT (4123), HOST (0.0.0.0), VOICE_SAMPLE_PATH (the default voice), MAX_TOTAL_LENGTH (3000)
//   GET  /health    (also /v1/health, /status) always 200: {status: "initializing"|"healthy", model_loaded,
//                   device, initialization_state, initialization_progress}; "healthy" once the model is loaded
//   GET  /ping      {status: "ok", message}
//   POST /audio/speech (also /v1/audio/speech, /tts)  JSON TTSRequest → audio/wav (always WAV whatever
//                   response_format says; speed ignored); stream_format "sse" → speech.audio.delta/done events
//   POST /audio/speech/upload (also /v1/…, /tts/upload)  multipart: the same fields + optional voice_file
//                   (.mp3 .wav .flac .m4a .ogg, ≤ 10 MB), which takes priority over `voice`
//   GET  /voices (also /v1/voices)  {voices: [{name, filename, file_size, upload_date, language}], count}
//   POST /voices    multipart voice_name, voice_file, language → 201 {message, voice}; 409 when it exists
//   DELETE /voices/{name}  → {message}; 404 when missing
//   voices          a library name, else (OpenAI names, unknown names, none) the default sample
//   errors          HTTPException bodies {"error": {"message", "type"}}; request validation 422 {"detail": [...]}
//
// The "speech" is a deterministic tone: its pitch comes from the sha256 of the voice reference and its
// length from the text, so a test can tell which reference a request used (see `synthesize`). Plain
// CommonJS without dependencies: the test image holds only node and this file (as /app/main.py).
'use strict'
const { createHash } = require('node:crypto')
const { readFileSync } = require('node:fs')
const { createServer } = require('node:http')
// Beside this file, also in the container image (see buildChatterboxStandInImage).
const { toneWav } = require('./tone-wav.cjs')

const SAMPLE_RATE = 24000 // Chatterbox's S3Gen output rate
const ALLOWED_MODELS = [
  'chatterbox-v1',
  'chatterbox-v2',
  'chatterbox-multilingual-v1',
  'chatterbox-multilingual-v2',
  'tts-1',
  'tts-1-hd',
]
const VOICE_EXTENSIONS = ['.mp3', '.wav', '.flac', '.m4a', '.ogg']
const MAX_VOICE_BYTES = 10 * 1024 * 1024

/**
 * The stand-in's speech for `text` in the voice of `reference` (the bytes of the voice sample): a tone
 * of 150–661 Hz picked by the reference's sha256, 50 ms per character (at most 30 s). Deterministic.
 */
function synthesize(text, reference) {
  const digest = createHash('sha256').update(reference).digest()
  const pitch = 150 + (digest.readUInt16BE(0) % 512)
  const n = Math.min(30 * SAMPLE_RATE, Math.max(1, text.length) * (SAMPLE_RATE / 20))
  return toneWav(n, { rate: SAMPLE_RATE, hz: pitch })
}

/** Minimal multipart/form-data parser: {fields: {name: string}, files: {name: {filename, type, data}}}. */
function parseMultipart(body, contentType) {
  const m = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType || '')
  if (!m) return undefined
  const delimiter = Buffer.from(`--${m[1] || m[2]}`)
  const fields = {}
  const files = {}
  let start = body.indexOf(delimiter)
  while (start >= 0) {
    const next = body.indexOf(delimiter, start + delimiter.length)
    if (next < 0) break
    const part = body.subarray(start + delimiter.length + 2, next - 2) // skip CRLF after the delimiter and before the next
    const split = part.indexOf('\r\n\r\n')
    if (split >= 0) {
      const head = part.subarray(0, split).toString('utf8')
      const data = part.subarray(split + 4)
      const name = /name="([^"]*)"/i.exec(head)?.[1]
      const filename = /filename="([^"]*)"/i.exec(head)?.[1]
      const type = /content-type:\s*([^\r\n]+)/i.exec(head)?.[1]
      if (name !== undefined && filename !== undefined) files[name] = { filename, type, data }
      else if (name !== undefined) fields[name] = data.toString('utf8')
    }
    start = next
  }
  return { fields, files }
}

function sendJson(res, status, body) {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
  res.end(text)
}
/** A FastAPI HTTPException body, as the server's exception handler writes it. */
const httpError = (status, message, type) => ({ status, body: { error: { message, type } } })
/** A pydantic validation failure: FastAPI's own 422 body. */
const validationError = (field, msg, input) => ({
  status: 422,
  body: { detail: [{ type: 'value_error', loc: ['body', field], msg, input }] },
})

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks)))
    req.on('error', reject)
  })
}

function createStandIn(env = process.env) {
  const library = new Map() // name → {filename, data, language, upload_date}
  const initMs = Number(env.STANDIN_INIT_MS ?? 300)
  const startedAt = Date.now()
  const maxTotal = Number(env.MAX_TOTAL_LENGTH ?? 3000)
  let defaultSample = Buffer.from('chatterbox default voice sample')
  try {
    if (env.VOICE_SAMPLE_PATH) defaultSample = readFileSync(env.VOICE_SAMPLE_PATH)
  } catch {
    // the image may not carry a sample; the built-in one stands in
  }
  const ready = () => Date.now() - startedAt >= initMs
  const voiceFor = (name) => library.get(name)?.data ?? defaultSample

  /** What is wrong with a TTSRequest (the answer to send), or undefined. */
  function speechProblem(r) {
    if (typeof r.input !== 'string' || r.input.length < 1 || r.input.length > 3000)
      return validationError('input', 'String should have at least 1 and at most 3000 characters', r.input)
    if (!r.input.trim()) return validationError('input', 'Value error, Input text cannot be empty', r.input)
    if (r.model != null && !ALLOWED_MODELS.includes(r.model))
      return validationError(
        'model',
        `Value error, model must be one of: ${ALLOWED_MODELS.join(', ')}`,
        r.model,
      )
    if (r.stream_format != null && !['audio', 'sse'].includes(r.stream_format))
      return validationError(
        'stream_format',
        'Value error, stream_format must be one of: audio, sse',
        r.stream_format,
      )
    const ranges = { exaggeration: [0.25, 2], cfg_weight: [0, 1], temperature: [0.05, 5] }
    for (const [key, [lo, hi]] of Object.entries(ranges)) {
      const v = r[key]
      if (v != null && (typeof v !== 'number' || Number.isNaN(v) || v < lo || v > hi))
        return validationError(key, `Input should be between ${lo} and ${hi}`, v)
    }
    if (r.input.length > maxTotal)
      return httpError(
        400,
        `Input text too long. Maximum ${maxTotal} characters allowed.`,
        'invalid_request_error',
      )
    if (!ready()) return httpError(500, 'Model not loaded', 'model_error')
    return undefined
  }

  function speak(res, r, reference) {
    const audio = synthesize(r.input.trim(), reference)
    if (r.stream_format === 'sse') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
      res.write(
        `data: ${JSON.stringify({ type: 'speech.audio.info', sample_rate: SAMPLE_RATE, channels: 1, bits_per_sample: 16 })}\n\n`,
      )
      res.write(
        `data: ${JSON.stringify({ type: 'speech.audio.delta', audio: audio.subarray(44).toString('base64') })}\n\n`,
      )
      const usage = { input_tokens: r.input.length, output_tokens: (audio.length - 44) / 2, total_tokens: 0 }
      usage.total_tokens = usage.input_tokens + usage.output_tokens
      res.end(`data: ${JSON.stringify({ type: 'speech.audio.done', usage })}\n\n`)
      return
    }
    res.writeHead(200, {
      'content-type': 'audio/wav',
      'content-disposition': 'attachment; filename=speech.wav',
      'content-length': audio.length,
    })
    res.end(audio)
  }

  /** What is wrong with an uploaded voice file (the answer to send), or undefined. */
  function voiceFileProblem(file) {
    if (!file.filename) return httpError(400, 'No filename provided', 'invalid_request_error')
    const ext = (/\.[^.]*$/.exec(file.filename.toLowerCase()) ?? [''])[0]
    if (!VOICE_EXTENSIONS.includes(ext))
      return httpError(
        400,
        `Unsupported audio format: ${ext}. Supported formats: ${VOICE_EXTENSIONS.join(', ')}`,
        'invalid_request_error',
      )
    if (file.data.length > MAX_VOICE_BYTES)
      return httpError(400, 'File too large. Maximum size: 10MB', 'invalid_request_error')
    return undefined
  }
  const answer = (res, problem) => sendJson(res, problem.status, problem.body)

  const formNumber = (v) => (v === undefined || v === '' ? undefined : Number(v))

  async function route(req, res) {
    const path = (req.url ?? '/').split('?')[0]
    const key = `${req.method} ${path.replace(/^\/v1(?=\/(audio|voices|health|ping))/, '')}`
    if (['GET /health', 'GET /status'].includes(key)) {
      const loaded = ready()
      return sendJson(res, 200, {
        status: loaded ? 'healthy' : 'initializing',
        model_loaded: loaded,
        device: 'cpu',
        initialization_state: loaded ? 'ready' : 'initializing',
        initialization_progress: loaded ? 'Model ready' : 'Loading TTS model...',
        initialization_error: null,
      })
    }
    if (key === 'GET /ping') return sendJson(res, 200, { status: 'ok', message: 'Server is running' })
    if (['POST /audio/speech', 'POST /tts'].includes(key)) {
      let r
      try {
        r = JSON.parse((await readBody(req)).toString('utf8'))
      } catch {
        return sendJson(res, 422, {
          detail: [{ type: 'json_invalid', loc: ['body', 0], msg: 'JSON decode error' }],
        })
      }
      if (!r || typeof r !== 'object') return answer(res, validationError('input', 'Field required', r))
      const problem = speechProblem(r)
      if (problem) return answer(res, problem)
      return speak(res, r, voiceFor(r.voice))
    }
    if (['POST /audio/speech/upload', 'POST /tts/upload'].includes(key)) {
      const form = parseMultipart(await readBody(req), req.headers['content-type'])
      if (!form) return answer(res, validationError('input', 'Field required', null))
      const f = form.fields
      const r = {
        input: f.input,
        model: f.model || undefined,
        voice: f.voice ?? 'alloy',
        stream_format: f.stream_format ?? 'audio',
        exaggeration: formNumber(f.exaggeration),
        cfg_weight: formNumber(f.cfg_weight),
        temperature: formNumber(f.temperature),
      }
      const file = form.files.voice_file
      const problem = speechProblem(r) ?? (file ? voiceFileProblem(file) : undefined)
      if (problem) return answer(res, problem)
      return speak(res, r, file ? file.data : voiceFor(r.voice))
    }
    if (key === 'GET /voices') {
      const voices = [...library.entries()].map(([name, v]) => ({
        name,
        filename: v.filename,
        file_size: v.data.length,
        upload_date: v.upload_date,
        language: v.language,
      }))
      return sendJson(res, 200, { voices, count: voices.length })
    }
    if (key === 'POST /voices') {
      const form = parseMultipart(await readBody(req), req.headers['content-type'])
      const name = form?.fields.voice_name
      const file = form?.files.voice_file
      if (!name) return answer(res, validationError('voice_name', 'Field required', null))
      if (!file) return answer(res, validationError('voice_file', 'Field required', null))
      const problem = voiceFileProblem(file)
      if (problem) return answer(res, problem)
      if (library.has(name))
        return answer(res, httpError(409, `Voice '${name}' already exists`, 'voice_exists_error'))
      const entry = {
        filename: file.filename,
        data: file.data,
        language: form.fields.language || 'en',
        upload_date: new Date().toISOString(),
      }
      library.set(name, entry)
      return sendJson(res, 201, {
        message: 'Voice uploaded successfully',
        voice: {
          name,
          filename: entry.filename,
          file_size: entry.data.length,
          upload_date: entry.upload_date,
          language: entry.language,
        },
      })
    }
    const named = /^DELETE \/voices\/([^/]+)$/.exec(key)
    if (named) {
      const name = decodeURIComponent(named[1])
      if (!library.delete(name))
        return answer(res, httpError(404, `Voice '${name}' not found`, 'voice_not_found_error'))
      return sendJson(res, 200, { message: `Voice '${name}' deleted successfully` })
    }
    sendJson(res, 404, { detail: 'Not Found' })
  }

  return createServer((req, res) => {
    route(req, res).catch((error) =>
      answer(res, httpError(500, `Internal server error: ${error.message}`, 'internal_error')),
    )
  })
}

module.exports = { synthesize, parseMultipart, createStandIn, SAMPLE_RATE }

if (require.main === module) {
  const server = createStandIn()
  const port = Number(process.env.PORT ?? 4123)
  const host = process.env.HOST ?? '0.0.0.0'
  server.listen(port, host, () => {
    const address = server.address()
    process.stdout.write(
      `INFO:     Uvicorn running on http://${host}:${address.port} (Press CTRL+C to quit)\n`,
    )
  })
  const stop = () => server.close(() => process.exit(0))
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
}
