/**
 * The second listener for clients that assume Ollama's address (`SVC_OLLAMA_PORT`, Ollama's own
 * 11434 by convention; off unless set): it serves the Ollama paths only, with the same auth, and
 * `GET /` answering "Ollama is running" as Ollama does (clients probe it). Anything else is 404 in
 * Ollama's shape: svc's own API stays on its main port.
 */
import type { IncomingMessage, RequestListener } from 'node:http'
import { SvcError } from '@svc/core'
import { requestPath } from '@svc/dispatcher'
import { requestIdOf } from '../http-handler'
import { writeOllamaError } from './ndjson'
import { isOllamaPath, type OllamaHandler } from './ollama-handler'

export function createOllamaListener(
  handle: OllamaHandler,
  /** The host rule, as on the main port (a page on a rebound name must not reach this port either). */
  refuse?: (req: IncomingMessage) => SvcError | undefined,
): RequestListener {
  return (req, res) => {
    const path = requestPath(req.url)
    const requestId = requestIdOf(req)
    const refused = refuse?.(req)
    if (refused) {
      writeOllamaError(res, refused, requestId)
      return
    }
    if (isOllamaPath(path)) {
      void handle(req, res, requestId)
      return
    }
    if (path === '/' && (req.method === 'GET' || req.method === 'HEAD')) {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'x-request-id': requestId })
      res.end(req.method === 'HEAD' ? undefined : 'Ollama is running')
      return
    }
    writeOllamaError(res, new SvcError('route.not_found', `no route ${path} on svc's Ollama port`), requestId)
  }
}
