/**
 * What the stand-in's routes share: the context each handler gets, what it answers (`Reply`), and
 * the error a handler throws for an HTTP refusal. A leaf: the route table and its routes import it.
 */
import type { Executor } from './executor'
import type { ComfyDirs } from './input-files'
import type { NodeSchemas } from './node-schemas'
import type { PromptQueue } from './prompt-queue'
import type { PyDict } from './py-values'

export interface ReceivedPrompt {
  /** The body as sent (`JSON.parse` would round big seeds; this does not). */
  raw: string
  /** The `prompt` graph as received, before validation coerced it: floats as numbers, big ints as bigint. */
  graph: Record<string, { class_type?: string; inputs?: Record<string, unknown> }>
  clientId: unknown
  /** 200 (queued) or 400 (refused). */
  status: number
  promptId?: string
  /** The response body. */
  response: unknown
}

/** One stored upload (`POST /upload/image` or `/upload/mask`), as answered. */
export interface ReceivedUpload {
  route: '/upload/image' | '/upload/mask'
  name: string
  subfolder: string
  type: string
}

export interface RouteContext {
  schemas: NodeSchemas
  queue: PromptQueue
  executor: Executor
  dirs: ComfyDirs
  /** Every upload stored (or found already there), in arrival order. */
  uploads: ReceivedUpload[]
  /** Files per model folder, for `GET /models/<folder>`. */
  modelFolders: Record<string, readonly string[]>
  prompts: ReceivedPrompt[]
  /** The server's own queue counter (`self.number`). */
  counter: { next: number }
  queueInfo(): PyDict
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly text: string,
  ) {
    super(text)
  }
}

export interface Reply {
  status: number
  /** JSON (Python-style); else `bytes`; else `text` (plain); else an empty body. */
  json?: unknown
  bytes?: Buffer
  text?: string
  headers?: Record<string, string>
}
