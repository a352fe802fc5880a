/**
 * The Ollama inference routes, each a translation to the OpenAI endpoint the engine speaks, run
 * through the dispatcher's `call` (the same resolution, lease, scope class and metrics as `/v1`):
 * `/api/chat` → `/v1/chat/completions`; `/api/generate` → `/v1/chat/completions` with the prompt as
 * the user's message (the model's chat template applies, as in Ollama), or `/v1/completions` when
 * `raw`; `/api/embed` and `/api/embeddings` → `/v1/embeddings`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { SvcError } from '@svc/core'
import type { Caller } from '@svc/dispatcher'
import { type AnswerShape, writeStreamedAnswer, writeWholeAnswer } from './answer-writer'
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
}

export async function chat(ctx: InferenceContext, body: OllamaChat): Promise<void> {
  const stream = body.stream !== false // Ollama streams unless told not to
  const openAi = {
    model: svcModelName(body.model),
    messages: openAiMessages(body.messages),
    ...(body.tools?.length ? { tools: body.tools } : {}),
    ...common(body, stream),
  }
  await answer(ctx, 'chat', body.model, '/v1/chat/completions', openAi, stream)
}

export async function generate(ctx: InferenceContext, body: OllamaGenerate): Promise<void> {
  if (body.suffix)
    throw new SvcError('request.invalid', 'suffix (fill-in-the-middle) is not supported', { param: 'suffix' })
  const stream = body.stream !== false
  const model = svcModelName(body.model)
  if (!body.prompt && !body.images?.length) {
    // Ollama answers an empty prompt by loading the model; a svc slot loads through its own API,
    // so this only says the request was understood.
    writeJson(
      ctx.res,
      200,
      {
        model: body.model,
        created_at: new Date().toISOString(),
        response: '',
        done: true,
        done_reason: 'load',
      },
      ctx.requestId,
    )
    return
  }
  if (body.raw) {
    const openAi = { model, prompt: body.prompt, ...common(body, stream) }
    await answer(ctx, 'generate', body.model, '/v1/completions', openAi, stream)
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
  )
}

export async function embed(
  ctx: InferenceContext,
  body: { model: string; input: string | string[]; dimensions?: number | undefined },
): Promise<void> {
  const input = typeof body.input === 'string' ? [body.input] : body.input
  const openAi = {
    model: svcModelName(body.model),
    input,
    ...(body.dimensions ? { dimensions: body.dimensions } : {}),
  }
  const result = await ctx.call(request(ctx, '/v1/embeddings', openAi), (r) => r.json())
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
  body: { model: string; prompt: string },
): Promise<void> {
  if (!body.prompt) {
    writeJson(ctx.res, 200, { embedding: [] }, ctx.requestId)
    return
  }
  const openAi = { model: svcModelName(body.model), input: body.prompt }
  const result = (await ctx.call(request(ctx, '/v1/embeddings', openAi), (r) => r.json())) as {
    data: { embedding: number[] }[]
  }
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
): Promise<void> {
  const writer = { shape, model, started: ctx.started, res: ctx.res, requestId: ctx.requestId }
  await ctx.call(request(ctx, path, body), (response) =>
    stream ? writeStreamedAnswer(writer, response) : writeWholeAnswer(writer, response),
  )
}
