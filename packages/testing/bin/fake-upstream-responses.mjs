// Response bodies of fake-upstream, built once at start so the hot path only writes buffers.
// Shapes follow llama-server (tools/server: format_oai_sse, format_response_rerank, the error JSON).

import { toneWav } from './tone-wav.cjs'

const WORDS = ['Hello', ' from', ' the', ' fake', ' upstream', '.']
const PROMPT_TOKENS = 8

/** A fixed JSON response as [status, headers, body], with its content-length computed once. */
const json = (status, body) => {
  const buf = Buffer.from(JSON.stringify(body))
  return [status, { 'content-type': 'application/json; charset=utf-8', 'content-length': buf.length }, buf]
}
const sse = (obj) => Buffer.from(`data: ${JSON.stringify(obj)}\n\n`)
const jsonHeaders = { 'content-type': 'application/json; charset=utf-8' }
const llamaError = (code, message, type) => [
  code,
  jsonHeaders,
  JSON.stringify({ error: { code, message, type } }),
]

/** Deterministic unit vector of 8 floats for a string (FNV-1a, then a murmur3 finaliser, per dimension). */
function vectorOf(text) {
  const v = []
  for (let d = 0; d < 8; d++) {
    let h = 0x811c9dc5 ^ d
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
    h ^= h >>> 16
    v.push(((h >>> 0) / 0xffffffff) * 2 - 1)
  }
  const norm = Math.hypot(...v) || 1
  return v.map((x) => x / norm)
}

const words = (s) => s.toLowerCase().match(/[a-z0-9]+/g) ?? []

function parse(body) {
  try {
    return JSON.parse(body.toString('utf8'))
  } catch {
    return undefined
  }
}

/** Builds every fixed body for these flags; `created` is the Unix time stamped into completions. */
export function buildResponses(flags, created) {
  const model = flags.model
  const n = flags.streamChunks
  const pieces = Array.from({ length: n }, (_, i) => WORDS[i % WORDS.length])
  const usage = { prompt_tokens: PROMPT_TOKENS, completion_tokens: n, total_tokens: PROMPT_TOKENS + n }
  const base = { id: 'chatcmpl-fake', created, model, system_fingerprint: 'fake-upstream' }
  /** [status, headers, body] of a list answer (embeddings, rerank): usage counts PROMPT_TOKENS per input. */
  const listReply = (inputs, items) => {
    const tokens = inputs * PROMPT_TOKENS
    const usage = { prompt_tokens: tokens, total_tokens: tokens }
    return [200, jsonHeaders, JSON.stringify({ model, object: 'list', usage, ...items })]
  }

  const chat = json(200, {
    ...base,
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', content: pieces.join('') }, finish_reason: 'stop' }],
    usage,
  })
  const chunk = { ...base, object: 'chat.completion.chunk' }
  const chatChunks = pieces.map((content, i) =>
    sse({
      ...chunk,
      choices: [
        { index: 0, delta: i === 0 ? { role: 'assistant', content } : { content }, finish_reason: null },
      ],
    }),
  )
  chatChunks.push(sse({ ...chunk, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage }))

  const text = { ...base, id: 'cmpl-fake', object: 'text_completion' }
  const completion = json(200, {
    ...text,
    choices: [{ index: 0, text: pieces.join(''), logprobs: null, finish_reason: 'stop' }],
    usage,
  })
  const completionChunks = pieces.map((t) =>
    sse({ ...text, choices: [{ index: 0, text: t, logprobs: null, finish_reason: null }] }),
  )
  completionChunks.push(
    sse({ ...text, choices: [{ index: 0, text: '', logprobs: null, finish_reason: 'stop' }], usage }),
  )

  const models = json(200, {
    object: 'list',
    data: [{ id: model, object: 'model', created, owned_by: 'llamacpp', meta: { n_embd: 8 } }],
  })

  // 0.1 s of a 440 Hz tone, 16 kHz mono s16le, split into n pieces
  const wav = toneWav(1600)
  const step = Math.ceil(wav.length / n)
  const wavChunks = Array.from({ length: n }, (_, i) => wav.subarray(i * step, (i + 1) * step))

  const html =
    '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>\n'
  const errors = {
    llama: llamaError(
      400,
      'fake-upstream: the request was rejected (--error-shape llama)',
      'invalid_request_error',
    ),
    text: [
      500,
      { 'content-type': 'text/plain; charset=utf-8' },
      'Internal Server Error: fake-upstream failed\n',
    ],
    html: [502, { 'content-type': 'text/html' }, html],
    detail: [
      422,
      jsonHeaders,
      JSON.stringify({
        detail: [{ type: 'missing', loc: ['body', 'input'], msg: 'Field required', input: null }],
      }),
    ],
    '200-error': [200, jsonHeaders, JSON.stringify({ error: 'fake-upstream: model failed to load' })],
  }

  return {
    jsonHeaders,
    health: json(200, { status: 'ok' }),
    loading: json(503, { error: { code: 503, message: 'Loading model', type: 'unavailable_error' } }),
    notFound: json(404, { error: { code: 404, message: 'File Not Found', type: 'not_found_error' } }),
    models,
    chat,
    chatChunks,
    completion,
    completionChunks,
    sseHeaders: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
    done: Buffer.from('data: [DONE]\n\n'),
    wavHeaders: { 'content-type': 'audio/wav' },
    wavChunks,
    errors,
    metricsHeaders: { 'content-type': 'text/plain; version=0.0.4' },

    /** [status, headers, body] for POST /v1/embeddings: one 8-dim vector per input. */
    embeddings(body) {
      const input = parse(body)?.input
      if (input === undefined) return llamaError(400, '"input" must be provided', 'invalid_request_error')
      const inputs = Array.isArray(input) && input.some((x) => typeof x !== 'number') ? input : [input]
      const data = inputs.map((x, index) => ({ object: 'embedding', index, embedding: vectorOf(String(x)) }))
      return listReply(inputs.length, { data })
    },

    /** [status, headers, body] for POST /v1/rerank: share of query words in each document, best first. */
    rerank(body) {
      const req = parse(body) ?? {}
      if (typeof req.query !== 'string')
        return llamaError(400, '"query" must be provided', 'invalid_request_error')
      const docs = req.documents
      if (!Array.isArray(docs) || docs.length === 0 || docs.some((d) => typeof d !== 'string')) {
        return llamaError(400, '"documents" must be a non-empty string array', 'invalid_request_error')
      }
      const q = words(req.query)
      const results = docs
        .map((d, index) => {
          const w = new Set(words(d))
          return { index, relevance_score: q.length ? q.filter((x) => w.has(x)).length / q.length : 0 }
        })
        .sort((a, b) => b.relevance_score - a.relevance_score)
        .slice(0, typeof req.top_n === 'number' ? req.top_n : docs.length)
      return listReply(docs.length, { results })
    },

    metrics({ prompt, predicted, processing }) {
      return [
        '# HELP llamacpp:prompt_tokens_total Number of prompt tokens processed.',
        '# TYPE llamacpp:prompt_tokens_total counter',
        `llamacpp:prompt_tokens_total ${prompt}`,
        '# HELP llamacpp:tokens_predicted_total Number of generation tokens processed.',
        '# TYPE llamacpp:tokens_predicted_total counter',
        `llamacpp:tokens_predicted_total ${predicted}`,
        '# HELP llamacpp:requests_processing Number of requests processing.',
        '# TYPE llamacpp:requests_processing gauge',
        `llamacpp:requests_processing ${processing}`,
        '',
      ].join('\n')
    },

    /** The JSON body of GET /debug/last-request. */
    describe(last) {
      if (!last) return 'null'
      const { method, path, headers, body, aborted } = last
      return JSON.stringify({ method, path, headers, body: body ? body.toString('utf8') : null, aborted })
    },
  }
}
