import type { ActivitySurface } from './activity-types'

const SURFACES: Record<string, ActivitySurface> = {
  '/v1/chat/completions': 'chat',
  '/v1/completions': 'completions',
  '/v1/responses': 'responses',
  '/v1/messages': 'messages',
  '/v1/messages/count_tokens': 'messages',
  '/v1/embeddings': 'embeddings',
  '/v1/rerank': 'rerank',
  '/v1/rerankings': 'rerank',
  '/v1/responses/input_tokens': 'responses',
  '/v1/chat/completions/input_tokens': 'chat',
  '/v1/audio/transcriptions': 'transcription',
  '/v1/audio/translations': 'transcription',
  '/v1/audio/speech': 'speech',
}

/**
 * The surface a request came in on, from its route: the OpenAI endpoint, Anthropic Messages, the
 * Ollama API (its `/api/*` routes reach the dispatcher as calls inside svc), or `other`.
 */
export function surfaceOf(route: string): ActivitySurface {
  const known = SURFACES[route]
  if (known) return known
  if (route.startsWith('/v1/images/')) return 'images'
  if (route.startsWith('/api/')) return 'ollama'
  return 'other'
}
