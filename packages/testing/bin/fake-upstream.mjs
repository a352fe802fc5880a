#!/usr/bin/env node
// fake-upstream: a tiny OpenAI-shaped upstream that behaves like llama-server where it matters to a proxy
// (health while loading, SSE framing, error bodies), with flags to make it slow, flaky or stubborn.
// Plain JavaScript on purpose: it starts in ~50 ms and it is the upstream of the proxy benchmark, so the
// hot path only writes precomputed buffers. Usage: node fake-upstream.mjs --help
import { createServer } from 'node:http'
import { parseArgs } from 'node:util'
import { buildResponses } from './fake-upstream-responses.mjs'

const USAGE = `usage: fake-upstream [--host H] [--port P] [--model ID] [--delay-ms N] [--stream-chunks N]
  [--chunk-interval-ms N] [--fail-health] [--health-after-ms N] [--crash-after N] [--crash-mid-stream]
  [--ignore-sigterm] [--error-shape llama|text|html|detail|200-error] [--listen-after-ms N]`
const ERROR_SHAPES = ['llama', 'text', 'html', 'detail', '200-error']

function parseFlags() {
  let values
  try {
    ;({ values } = parseArgs({
      options: {
        host: { type: 'string', default: '127.0.0.1' },
        port: { type: 'string', default: '0' },
        model: { type: 'string', default: 'fake-model' },
        'delay-ms': { type: 'string', default: '0' },
        'stream-chunks': { type: 'string', default: '5' },
        'chunk-interval-ms': { type: 'string', default: '0' },
        'fail-health': { type: 'boolean', default: false },
        'health-after-ms': { type: 'string', default: '0' },
        'listen-after-ms': { type: 'string', default: '0' },
        'crash-after': { type: 'string', default: '0' },
        'crash-mid-stream': { type: 'boolean', default: false },
        'ignore-sigterm': { type: 'boolean', default: false },
        'error-shape': { type: 'string' },
        help: { type: 'boolean', default: false },
      },
      strict: true,
    }))
  } catch (err) {
    fail(err.message)
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`)
    process.exit(0)
  }
  const int = (name) => {
    const n = Number(values[name])
    if (!Number.isInteger(n) || n < 0) fail(`--${name} must be a non-negative integer, got ${values[name]}`)
    return n
  }
  const shape = values['error-shape']
  if (shape !== undefined && !ERROR_SHAPES.includes(shape))
    fail(`--error-shape must be one of ${ERROR_SHAPES.join('|')}`)
  return {
    host: values.host,
    port: int('port'),
    model: values.model,
    delayMs: int('delay-ms'),
    streamChunks: Math.max(1, int('stream-chunks')),
    chunkIntervalMs: int('chunk-interval-ms'),
    failHealth: values['fail-health'],
    healthAfterMs: int('health-after-ms'),
    // Binds only after this long, as an engine that loads its model before it listens (whisper-server).
    listenAfterMs: int('listen-after-ms'),
    crashAfter: int('crash-after'),
    crashMidStream: values['crash-mid-stream'],
    ignoreSigterm: values['ignore-sigterm'],
    errorShape: shape,
  }
}

function fail(message) {
  process.stderr.write(`fake-upstream: ${message}\n${USAGE}\n`)
  process.exit(2)
}

const flags = parseFlags()
const startedAt = Date.now()
const created = Math.floor(startedAt / 1000)
const R = buildResponses(flags, created)

// ---- state ---------------------------------------------------------------------------------------------
let served = 0 // requests counted for --crash-after (everything but /health and /debug/*)
let lastRequest = null
const metrics = { prompt: 0, predicted: 0, processing: 0 }

function send(res, status, headers, body) {
  res.writeHead(status, headers)
  res.end(body)
}

/** Reads the whole body (only the JSON endpoints need it), then calls back with a Buffer. */
function readBody(req, done) {
  const chunks = []
  req.on('data', (c) => chunks.push(c))
  req.on('end', () => done(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)))
}

/** Counts the body's bytes without keeping them. */
function drain(req, done) {
  let n = 0
  req.on('data', (c) => {
    n += c.length
  })
  req.on('end', () => done(n))
}

function later(ms, fn) {
  if (ms > 0) setTimeout(fn, ms)
  else fn()
}

/**
 * Writes events one by one, `--chunk-interval-ms` apart, then `trailer`. With `--crash-mid-stream` it
 * waits for half the content chunks to flush, then resets the connection and exits 1.
 */
function stream(res, events, headers = R.sseHeaders, trailer = R.done) {
  res.writeHead(200, headers)
  const crashAt = flags.crashMidStream ? Math.max(1, Math.floor(flags.streamChunks / 2)) : -1
  if (flags.chunkIntervalMs === 0 && crashAt === -1) {
    for (const event of events) res.write(event)
    return trailer ? res.end(trailer) : res.end()
  }
  let i = 0
  const step = () => {
    if (res.destroyed) return // the client went away; stop writing
    if (i === crashAt) {
      res.socket?.destroy()
      process.exit(1)
    }
    if (i === events.length) return trailer ? res.end(trailer) : res.end()
    res.write(events[i++], () => later(flags.chunkIntervalMs, step))
  }
  step()
}

function inference(req, res, kind, record) {
  if (flags.errorShape)
    return drain(req, () => later(flags.delayMs, () => send(res, ...R.errors[flags.errorShape])))
  if (kind === 'transcription') {
    return drain(req, (n) =>
      later(flags.delayMs, () => send(res, 200, R.jsonHeaders, JSON.stringify({ text: `${n} bytes` }))),
    )
  }
  readBody(req, (body) => {
    record.body = body
    later(flags.delayMs, () => {
      metrics.prompt += 8
      if (kind === 'speech') return stream(res, R.wavChunks, R.wavHeaders, null)
      if (kind === 'embeddings') return send(res, ...R.embeddings(body))
      if (kind === 'rerank') return send(res, ...R.rerank(body))
      metrics.predicted += flags.streamChunks
      const wantsStream = /"stream"\s*:\s*true/.test(body.toString('latin1'))
      if (kind === 'chat') {
        if (wantsStream) return stream(res, R.chatChunks)
        return send(res, ...R.chat)
      }
      if (wantsStream) return stream(res, R.completionChunks)
      send(res, ...R.completion)
    })
  })
}

const ROUTES = {
  'POST /v1/chat/completions': 'chat',
  'POST /v1/completions': 'completions',
  'POST /v1/embeddings': 'embeddings',
  'POST /v1/rerank': 'rerank',
  'POST /v1/audio/transcriptions': 'transcription',
  'POST /v1/audio/speech': 'speech',
}

const server = createServer({ keepAliveTimeout: 65_000, noDelay: true }, (req, res) => {
  const q = req.url.indexOf('?')
  const path = q === -1 ? req.url : req.url.slice(0, q)
  if (path === '/health' || path === '/v1/health') {
    const ready = !flags.failHealth && Date.now() - startedAt >= flags.healthAfterMs
    return send(res, ...(ready ? R.health : R.loading))
  }
  if (req.method === 'GET' && path === '/debug/last-request') {
    return send(res, 200, R.jsonHeaders, R.describe(lastRequest))
  }
  const record = { method: req.method, path, headers: req.headers, body: null, aborted: false }
  lastRequest = record
  metrics.processing++
  res.once('close', () => {
    metrics.processing--
    if (!res.writableFinished) record.aborted = true
  })
  if (flags.crashAfter > 0 && ++served >= flags.crashAfter) {
    res.once('close', () => process.exit(1)) // also when the client gave up on it
  }
  const key = `${req.method} ${path}`
  const kind = ROUTES[key]
  if (kind) return inference(req, res, kind, record)
  if (key === 'GET /v1/models' || key === 'GET /models') return send(res, ...R.models)
  if (key === 'GET /metrics') return send(res, 200, R.metricsHeaders, R.metrics(metrics))
  req.resume()
  send(res, ...R.notFound)
})

process.on('SIGTERM', () => {
  if (flags.ignoreSigterm) {
    process.stderr.write('fake-upstream: ignoring SIGTERM\n')
    return
  }
  server.close()
  server.closeAllConnections()
  process.exit(0)
})

setTimeout(() => {
  server.listen(flags.port, flags.host, () => {
    const { port } = server.address()
    const host = flags.host.includes(':') ? `[${flags.host}]` : flags.host
    process.stdout.write(`fake-upstream listening on http://${host}:${port}\n`)
  })
}, flags.listenAfterMs)
