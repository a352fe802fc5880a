/**
 * Ollama's answers on Node's raw response: one JSON object (`stream: false`) or NDJSON lines
 * (`application/x-ndjson`), and its error body `{"error": "…"}` rendered from svc's `SvcError`
 * (with svc's dotted `code` beside it, which Ollama clients ignore and people can read). Every head
 * carries what the app added for the request (a limited token's rate-limit headers), as the
 * dispatcher's answers do.
 */
import type { ServerResponse } from 'node:http'
import { renderError, SvcError } from '@svc/core'
import { withAddedHeaders } from '@svc/dispatcher'

/** Sends one JSON object. */
export function writeJson(res: ServerResponse, status: number, body: unknown, requestId: string): void {
  const text = JSON.stringify(body)
  res.writeHead(
    status,
    withAddedHeaders(res, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
      'x-request-id': requestId,
    }),
  )
  res.end(text)
}

/** An NDJSON stream: headers go out with the first line. Lines wait for a full socket to drain. */
export class NdjsonWriter {
  constructor(
    private readonly res: ServerResponse,
    private readonly requestId: string,
  ) {}

  async line(value: unknown): Promise<void> {
    const { res } = this
    if (res.destroyed) return
    if (!res.headersSent) {
      res.writeHead(
        200,
        withAddedHeaders(res, { 'content-type': 'application/x-ndjson', 'x-request-id': this.requestId }),
      )
    }
    if (!res.write(`${JSON.stringify(value)}\n`)) await new Promise((r) => res.once('drain', r))
  }

  end(): void {
    if (!this.res.headersSent) {
      this.res.writeHead(
        200,
        withAddedHeaders(this.res, {
          'content-type': 'application/x-ndjson',
          'x-request-id': this.requestId,
        }),
      )
    }
    this.res.end()
  }
}

/** Ollama's error body for any error, with svc's status and headers. */
export function ollamaError(error: unknown): {
  status: number
  headers: Record<string, string>
  body: object
} {
  const rendered = renderError(error)
  const err = error instanceof SvcError ? error : undefined
  const { 'content-type': _type, ...headers } = rendered.headers
  return {
    status: rendered.status,
    headers,
    body: { error: err?.message ?? 'internal error', code: err?.code ?? 'internal.error' },
  }
}

/**
 * Writes an error in Ollama's shape. In a stream already under way it is one more line, `{"error": …}`,
 * which is how Ollama itself reports a failure mid-stream (its clients raise it). Returns the status.
 */
export function writeOllamaError(res: ServerResponse, error: unknown, requestId: string): number {
  const { status, headers, body } = ollamaError(error)
  if (res.destroyed) return status
  if (res.headersSent) {
    res.end(`${JSON.stringify(body)}\n`)
    return status
  }
  const text = JSON.stringify(body)
  res.writeHead(
    status,
    withAddedHeaders(res, {
      ...headers,
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
      'x-request-id': requestId,
    }),
  )
  res.end(text)
  return status
}
