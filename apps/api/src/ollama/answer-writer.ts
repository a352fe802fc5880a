/**
 * Writes an OpenAI answer as Ollama's `/api/chat` (`message`) or `/api/generate` (`response`) answer:
 * one object, or NDJSON lines ending with a `done: true` line that carries `done_reason`, the counts
 * and the durations.
 */
import type { ServerResponse } from 'node:http'
import { NdjsonWriter, writeJson } from './ndjson'
import { type AnswerPiece, streamedAnswer, wholeAnswer } from './openai-answer'
import { doneReason, ollamaStats } from './stats'

export type AnswerShape = 'chat' | 'generate'

export interface AnswerContext {
  shape: AnswerShape
  /** The model name as the client sent it (Ollama echoes it). */
  model: string
  started: number
  res: ServerResponse
  requestId: string
}

function body(ctx: AnswerContext, piece: AnswerPiece): Record<string, unknown> {
  const head = { model: ctx.model, created_at: new Date().toISOString() }
  if (ctx.shape === 'chat') {
    return {
      ...head,
      message: {
        role: 'assistant',
        content: piece.content ?? '',
        ...(piece.thinking ? { thinking: piece.thinking } : {}),
        ...(piece.toolCalls ? { tool_calls: piece.toolCalls } : {}),
      },
    }
  }
  return { ...head, response: piece.content ?? '', ...(piece.thinking ? { thinking: piece.thinking } : {}) }
}

function finished(ctx: AnswerContext, piece: AnswerPiece): Record<string, unknown> {
  return {
    ...body(ctx, piece),
    done: true,
    done_reason: doneReason(piece.finish),
    // Ollama's deprecated conversation memory: svc keeps none (and ignores a `context` sent back).
    ...(ctx.shape === 'generate' ? { context: [] } : {}),
    ...ollamaStats(ctx.started, piece.usage, piece.timings),
  }
}

export async function writeWholeAnswer(ctx: AnswerContext, response: Response): Promise<void> {
  writeJson(ctx.res, 200, finished(ctx, await wholeAnswer(response)), ctx.requestId)
}

export async function writeStreamedAnswer(ctx: AnswerContext, response: Response): Promise<void> {
  const out = new NdjsonWriter(ctx.res, ctx.requestId)
  for await (const piece of streamedAnswer(response)) {
    if (piece.finish === undefined) {
      await out.line({ ...body(ctx, piece), done: false })
      continue
    }
    // Tool calls come whole in a line of their own, before the closing line (as Ollama sends them).
    if (piece.toolCalls) await out.line({ ...body(ctx, { toolCalls: piece.toolCalls }), done: false })
    await out.line(finished(ctx, { ...piece, toolCalls: undefined }))
  }
  out.end()
}
