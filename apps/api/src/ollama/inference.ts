/**
 * The Ollama inference routes, each a translation to the OpenAI endpoint the engine speaks, run
 * through the dispatcher's `call` (the same resolution, lease, scope class and metrics as `/v1`):
 * `/api/chat` → `/v1/chat/completions`; `/api/generate` → `/v1/chat/completions` with the prompt as
 * the user's message (the model's chat template applies, as in Ollama), or `/v1/completions` when
 * `raw`; `/api/embed` and `/api/embeddings` → `/v1/embeddings`. A request with nothing to answer
 * (no messages, no prompt, no input) loads the model, or unloads it with `keep_alive: 0`
 * (`lifecycle.ts`), and every request's `keep_alive` is applied there.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { SvcError } from '@svc/core'
import type { Caller } from '@svc/dispatcher'
import { type AnswerShape, writeStreamedAnswer, writeWholeAnswer } from './answer-writer'
import { parseKeepAlive } from './keep-alive'
import { applyKeepAlive, type LifecycleDeps, loadModel, unloadModel } from './lifecycle'
import { contentOf, openAiMessages } from './messages'
import { svcModelName } from './names'
import { writeJson } from './ndjson'
import { formatField, samplingFields, thinkField } from './options'
import type { OllamaChat, OllamaGenerate } from './schemas'
import { ollamaStats } from './stats'

export interface InferenceContext {
  call: Caller
  req: IncomingMessage
  res: ServerResponse
  requestId: string
  signal: AbortSignal
  route: string
  started: number
  /** Slots and models, for loads, unloads and `keep_alive`. */
  lifecycle: LifecycleDeps
  /** Whether the caller may manage slots (admin, or auth off): only then `keep_alive` applies and unload is allowed. */
  manages: boolean
}

export async function chat(ctx: InferenceContext, body: OllamaChat): Promise<void> {
  const keepAlive = parseKeepAlive(body.keep_alive)
  if (body.messages.length === 0) return lifecycle(ctx, 'chat', body.model, keepAlive)
  const stream = body.stream !== false // Ollama streams unless told not to
  const openAi = {
    model: svcModelName(body.model),
    messages: openAiMessages(body.messages),
    ...(body.tools?.length ? { tools: body.tools } : {}),
    ...common(body, stream),
  }
  await answer(ctx, 'chat', body.model, '/v1/chat/completions', openAi, stream, keepAlive)
}

export async function generate(ctx: InferenceContext, body: OllamaGenerate): Promise<void> {
  if (body.suffix)
    throw new SvcError('request.invalid', 'suffix (fill-in-the-middle) is not supported', { param: 'suffix' })
  const keepAlive = parseKeepAlive(body.keep_alive)
  if (!body.prompt && !body.images?.length) return lifecycle(ctx, 'generate', body.model, keepAlive)
  const stream = body.stream !== false
  const model = svcModelName(body.model)
  if (body.raw) {
    const openAi = { model, prompt: body.prompt, ...common(body, stream) }
    await answer(ctx, 'generate', body.model, '/v1/completions', openAi, stream, keepAlive)
    return
  }
  const messages = [
    ...(body.system ? [{ role: 'system', content: body.system }] : []),
    { role: 'user', content: contentOf(body.prompt, body.images ?? undefined) },
  ]
  await answer(
    ctx,
    'generate',
    body.model,
    '/v1/chat/completions',
    { model, messages, ...common(body, stream) },
    stream,
    keepAlive,
  )
}

export async function embed(
  ctx: InferenceContext,
  body: { model: string; input: string | string[]; dimensions?: number | undefined; keep_alive?: unknown },
): Promise<void> {
  const keepAlive = parseKeepAlive(body.keep_alive)
  if (body.input === '' || body.input.length === 0) return lifecycle(ctx, 'embed', body.model, keepAlive)
  const input = typeof body.input === 'string' ? [body.input] : body.input
  const openAi = {
    model: svcModelName(body.model),
    input,
    ...(body.dimensions ? { dimensions: body.dimensions } : {}),
  }
  const result = await ctx.call(request(ctx, '/v1/embeddings', openAi), (r, info) => {
    keep(ctx, info.model, keepAlive)
    return r.json()
  })
  const { data, usage } = result as {
    data: { index: number; embedding: number[] }[]
    usage?: { prompt_tokens?: number }
  }
  const stats = ollamaStats(ctx.started, usage)
  writeJson(
    ctx.res,
    200,
    {
      model: body.model,
      embeddings: [...data].sort((a, b) => a.index - b.index).map((d) => d.embedding),
      total_duration: stats.total_duration,
      load_duration: stats.load_duration,
      prompt_eval_count: stats.prompt_eval_count,
    },
    ctx.requestId,
  )
}

/** The older `/api/embeddings`: one `prompt`, one `embedding` (an empty prompt gets an empty one, as in Ollama). */
export async function embeddings(
  ctx: InferenceContext,
  body: { model: string; prompt: string; keep_alive?: unknown },
): Promise<void> {
  const keepAlive = parseKeepAlive(body.keep_alive)
  if (!body.prompt) {
    writeJson(ctx.res, 200, { embedding: [] }, ctx.requestId)
    return
  }
  const openAi = { model: svcModelName(body.model), input: body.prompt }
  const result = (await ctx.call(request(ctx, '/v1/embeddings', openAi), (r, info) => {
    keep(ctx, info.model, keepAlive)
    return r.json()
  })) as { data: { embedding: number[] }[] }
  writeJson(ctx.res, 200, { embedding: result.data[0]?.embedding ?? [] }, ctx.requestId)
}

function common(body: OllamaChat | OllamaGenerate, stream: boolean): Record<string, unknown> {
  return {
    ...samplingFields(body.options ?? undefined),
    ...formatField(body.format),
    ...thinkField(body.think),
    stream,
    ...(stream ? { stream_options: { include_usage: true } } : {}),
  }
}

function request(ctx: InferenceContext, path: string, body: Record<string, unknown>) {
  return { path, body, requestId: ctx.requestId, signal: ctx.signal, route: ctx.route, req: ctx.req }
}

async function answer(
  ctx: InferenceContext,
  shape: AnswerShape,
  model: string,
  path: string,
  body: Record<string, unknown>,
  stream: boolean,
  keepAlive: number | undefined,
): Promise<void> {
  const writer = { shape, model, started: ctx.started, res: ctx.res, requestId: ctx.requestId }
  await ctx.call(request(ctx, path, body), (response, info) => {
    keep(ctx, info.model, keepAlive)
    return stream ? writeStreamedAnswer(writer, response) : writeWholeAnswer(writer, response)
  })
}

/** A request's `keep_alive`, for a caller that may manage slots (see `lifecycle.ts`). */
function keep(ctx: InferenceContext, model: string, keepAlive: number | undefined): void {
  if (ctx.manages) applyKeepAlive(ctx.lifecycle, model, keepAlive)
}

/**
 * A request with nothing to answer: loads the model (`done_reason: "load"`), or with `keep_alive: 0`
 * unloads it (`"unload"`). One JSON object, streamed or not, as Ollama answers it.
 */
async function lifecycle(
  ctx: InferenceContext,
  shape: AnswerShape | 'embed',
  name: string,
  keepAlive: number | undefined,
): Promise<void> {
  let reason: 'load' | 'unload' = 'load'
  if (keepAlive === 0) {
    if (!ctx.manages)
      throw new SvcError(
        'auth.forbidden',
        `unloading "${name}" (keep_alive 0) changes a slot for everyone: it needs a token that may manage slots (admin)`,
      )
    await unloadModel(ctx.lifecycle, name)
    reason = 'unload'
  } else {
    await loadModel(ctx.lifecycle, name, shape, ctx.signal, (model) => keep(ctx, model, keepAlive))
  }
  // The whole time went to the load (or unload); nothing was evaluated.
  const stats = ollamaStats(ctx.started)
  stats.load_duration = stats.total_duration
  const head = { model: name, created_at: new Date().toISOString() }
  const answer =
    shape === 'embed'
      ? {
          model: name,
          embeddings: [],
          total_duration: stats.total_duration,
          load_duration: stats.load_duration,
          prompt_eval_count: 0,
        }
      : shape === 'chat'
        ? { ...head, message: { role: 'assistant', content: '' }, done_reason: reason, done: true, ...stats }
        : { ...head, response: '', done: true, done_reason: reason, context: [], ...stats }
  writeJson(ctx.res, 200, answer, ctx.requestId)
}
