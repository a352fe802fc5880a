/**
 * The API's HTTP servers (the main one and the Ollama port): Node's, with request and response
 * classes that carry svc's per-request slots from the start — the usage subject (quota-gate.ts), the
 * models a limited token may use (middleware/token-models.ts) and the added rate-limit headers
 * (@svc/dispatcher). Set on only some requests, such a slot gives V8 two
 * shapes of request or response wherever Node's HTTP code reads one, and a process that answers
 * limited and unlimited callers at once then runs those reads polymorphic, slower for everyone.
 * new-server.test.ts checks that the shapes stay one.
 */
import { createServer, type Server } from 'node:http'
import { ResponseWithAddedHeaders } from '@svc/dispatcher'
import { SvcRequest } from './middleware/token-models'

export function newServer(): Server {
  return createServer({ IncomingMessage: SvcRequest, ServerResponse: ResponseWithAddedHeaders })
}
