/**
 * The wrong-answering stand-in: a real HTTP server on 127.0.0.1 that speaks llama-server's routes
 * (`/health`, `/v1/models`, `/v1/chat/completions`, `/v1/completions`, `/v1/responses`,
 * `/v1/messages` and the token counts) and answers the way the engine is known to be wrong
 * (`wrong-engine-answers.ts`), so svc's corrections stay tested when a future engine fixes itself.
 * It records every request it receives (path, headers, parsed body), so a test can assert what
 * reached the engine. Point a `remote` runtime slot at `url`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { chatAnswer, completionAnswer, generate, messagesAnswer, type SseOut } from './wrong-engine-answers'
import { responsesAnswer } from './wrong-engine-responses'

export { WRONG_ENGINE_TEXT } from './wrong-engine-answers'

/** One request the stand-in received. */
export interface WrongEngineRequest {
  path: string
  headers: Record<string, string | string[] | undefined>
  /** The parsed JSON body (undefined for none or not JSON). */
  body: unknown
}

export interface WrongEngine extends AsyncDisposable {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string
  /** The id `/v1/models` lists and every answer names. */
  model: string
  /** Every POST it received, in order. */
  received(): readonly WrongEngineRequest[]
  /** The last POST to `path`, or undefined. */
  last(path: string): WrongEngineRequest | undefined
  close(): Promise<void>
}

type Answer = { error?: string; json?: unknown; events?: SseOut[] }

/** Starts the stand-in on 127.0.0.1, port 0. `model` defaults to `wrong-model`. */
export async function startWrongEngine(options: { model?: string } = {}): Promise<WrongEngine> {
  const model = options.model ?? 'wrong-model'
  const received: WrongEngineRequest[] = []
  const server = createServer((req, res) => {
    void handle(req, res, model, received).catch((error: unknown) => {
      if (!res.headersSent)
        send(res, 500, { error: { code: 500, message: String(error), type: 'server_error' } })
      else res.destroy()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return {
    url: `http://127.0.0.1:${port}`,
    model,
    received: () => received,
    last: (path) => received.findLast((r) => r.path === path),
    close,
    [Symbol.asyncDispose]: close,
  }
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  model: string,
  received: WrongEngineRequest[],
): Promise<void> {
  const path = (req.url ?? '/').split('?')[0] ?? '/'
  if (req.method === 'GET') {
    if (path === '/health') return send(res, 200, { status: 'ok' })
    if (path === '/v1/models' || path === '/models') {
      const data = [
        { id: model, object: 'model', created: 0, owned_by: 'llamacpp', meta: { n_ctx_train: 512 } },
      ]
      return send(res, 200, { object: 'list', data, models: [{ name: model, model }] })
    }
    return send(res, 404, { error: { code: 404, message: 'File Not Found', type: 'not_found_error' } })
  }
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  let body: Record<string, unknown> | undefined
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>
  } catch {
    body = undefined
  }
  received.push({ path, headers: req.headers, body })
  if (!body || typeof body !== 'object') return invalid(res, 'the body is not JSON')
  const answer = answerFor(path, body, model)
  if (!answer)
    return send(res, 404, { error: { code: 404, message: 'File Not Found', type: 'not_found_error' } })
  if (answer.error) return invalid(res, answer.error)
  if (answer.events) return sse(res, answer.events)
  return send(res, 200, answer.json)
}

function answerFor(path: string, body: Record<string, unknown>, model: string): Answer | undefined {
  switch (path) {
    case '/v1/chat/completions':
    case '/chat/completions':
      return chatAnswer(body, model)
    case '/v1/completions':
    case '/completions':
      return completionAnswer(body, model)
    case '/v1/responses':
      return responsesAnswer(body, model)
    case '/v1/messages':
      return messagesAnswer(body, model)
    case '/v1/chat/completions/input_tokens':
    case '/v1/messages/count_tokens':
      return { json: { input_tokens: generate(body, 0, undefined).promptTokens } }
    case '/v1/responses/input_tokens':
      return {
        json: { object: 'response.input_tokens', input_tokens: generate(body, 0, undefined).promptTokens },
      }
    default:
      return undefined
  }
}

/** The engine's 400: `{"error":{"code":400,"message","type":"invalid_request_error"}}`. */
function invalid(res: ServerResponse, message: string): void {
  send(res, 400, { error: { code: 400, message, type: 'invalid_request_error' } })
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  })
  res.end(text)
}

function sse(res: ServerResponse, events: readonly SseOut[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  for (const { event, data } of events) {
    const line = typeof data === 'string' ? data : JSON.stringify(data)
    res.write(`${event ? `event: ${event}\n` : ''}data: ${line}\n\n`)
  }
  res.end()
}
