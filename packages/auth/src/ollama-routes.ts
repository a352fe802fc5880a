/**
 * The Ollama API's paths under `/api/*` (docs/ollama.md) and their route classes. They sit beside
 * svc's management API, so they are named one by one; any other `/api/*` path keeps its class.
 *
 * - Inference (`/api/chat`, `/api/generate`, `/api/embed`, `/api/embeddings`) runs a model: the
 *   `/v1` inference class, whatever the method, so a `v1-only` token may use them.
 * - The lists (`GET /api/tags`, `GET /api/ps`, `POST /api/show`, `GET /api/version`) say no more
 *   than `GET /v1/models` (which models, loaded or not, what they can do): as open as it is, since a
 *   client must see the models before it can use a token on one.
 * - `/api/pull` downloads a model, and the routes svc answers 501 (`create`, `copy`, `push`,
 *   `delete`, `blobs`) would change the store: admin mutations, like any other `/api/*` write.
 */
import type { RouteClass } from './route-classes'

const OLLAMA_INFERENCE: ReadonlySet<string> = new Set([
  '/api/chat',
  '/api/generate',
  '/api/embed',
  '/api/embeddings',
])

/** The list reads, with the method each answers. */
const OLLAMA_LISTS: Readonly<Record<string, string>> = {
  '/api/tags': 'GET',
  '/api/ps': 'GET',
  '/api/version': 'GET',
  '/api/show': 'POST',
}

/** The class of an Ollama path, or undefined for any other path. `path` is plain, no trailing slash. */
export function classifyOllama(method: string, path: string): RouteClass | undefined {
  if (OLLAMA_INFERENCE.has(path)) return 'v1-inference'
  const listMethod = OLLAMA_LISTS[path]
  if (listMethod === undefined) return undefined
  const matches = method === listMethod || (listMethod === 'GET' && method === 'HEAD')
  return matches ? 'v1-models' : 'api-mutation'
}
