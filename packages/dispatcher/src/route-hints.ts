/**
 * The request's side of cache-aware routing (docs/scale-out.md, "Routing"): what a slot with
 * replicas needs to send a prompt where its prefix probably sits in a KV cache. svc cannot see the
 * prompt the chat template renders, so it hashes what the client sent, in the order the engine will
 * read it: a chat's tools and messages (one block each), a Responses request's instructions and input
 * items, a Messages request's system and messages, a completion's prompt in fixed-size chunks. The
 * hashes are chained (`blocks[i]` stands for blocks 0..i), so turn N+1 of a conversation starts with
 * turn N's blocks. Nothing is computed for a slot without replicas or one that routes by least load.
 */
import type { IncomingMessage } from 'node:http'
import { type Endpoint, hasReplicas, type RouteHints, type SlotConfig } from '@svc/core'

/** Blocks hashed per request at most: enough for long conversations; the rest of a prompt is its tail. */
export const MAX_BLOCKS = 64
/** A completion prompt is cut into blocks of this many characters. */
export const PROMPT_CHUNK = 512
/** Characters of one block that are hashed (its head and tail, plus its length, beyond this). */
const HASHED_CHARS = 32_768
/** Longest session key kept (a longer header is cut). */
const MAX_SESSION = 256

/**
 * The hints for a request to a slot of `config`, or undefined when the slot does not route by cache
 * across replicas (then nothing is hashed: the hop costs what it always did).
 */
export function routeHintsFor(
  config: SlotConfig,
  endpoint: Endpoint,
  body: Record<string, unknown> | undefined,
  req: IncomingMessage | undefined,
): RouteHints | undefined {
  if (config.routing.policy !== 'cache' || !hasReplicas(config)) return undefined
  const raw = req?.headers[config.routing.sessionHeader.toLowerCase()]
  const session = (Array.isArray(raw) ? raw[0] : raw)?.slice(0, MAX_SESSION)
  const hints = promptBlocks(endpoint, body)
  if (!hints && !session) return undefined
  const out = hints ?? { blocks: [], ends: [] }
  return session ? { ...out, session } : out
}

/** The chained block hashes of a request body's prompt; undefined for an endpoint without one. */
export function promptBlocks(
  endpoint: Endpoint,
  body: Record<string, unknown> | undefined,
): { blocks: number[]; ends: number[] } | undefined {
  if (!body) return undefined
  const parts: unknown[] = []
  switch (endpoint) {
    case 'chat':
      if (body.tools !== undefined) parts.push(body.tools)
      if (Array.isArray(body.messages)) parts.push(...body.messages)
      break
    case 'responses':
      if (body.tools !== undefined) parts.push(body.tools)
      if (body.instructions !== undefined) parts.push(body.instructions)
      if (Array.isArray(body.input)) parts.push(...body.input)
      else if (body.input !== undefined) parts.push(body.input)
      break
    case 'messages':
      if (body.tools !== undefined) parts.push(body.tools)
      if (body.system !== undefined) parts.push(body.system)
      if (Array.isArray(body.messages)) parts.push(...body.messages)
      break
    case 'completions': {
      const prompt = typeof body.prompt === 'string' ? body.prompt : JSON.stringify(body.prompt ?? '')
      for (let i = 0; i < prompt.length; i += PROMPT_CHUNK) parts.push(prompt.slice(i, i + PROMPT_CHUNK))
      break
    }
    default:
      return undefined
  }
  const blocks: number[] = []
  const ends: number[] = []
  let hash = 0
  let end = 0
  for (let i = 0; i < parts.length && i < MAX_BLOCKS; i++) {
    const part = parts[i]
    const text = typeof part === 'string' ? part : (JSON.stringify(part) ?? '')
    hash = hashText(text, hash)
    end += text.length
    blocks.push(hash)
    ends.push(end)
  }
  return blocks.length > 0 ? { blocks, ends } : undefined
}

/**
 * A 53-bit hash of `text` (cyrb53, public domain) seeded with the previous block's hash; a very long
 * block is hashed by its head, its tail and its length.
 */
export function hashText(text: string, previous: number): number {
  const seed = (previous >>> 0) ^ Math.floor(previous / 4_294_967_296)
  let h1 = 0xdeadbeef ^ seed
  let h2 = 0x41c6ce57 ^ seed
  const mix = (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const ch = text.charCodeAt(i)
      h1 = Math.imul(h1 ^ ch, 2654435761)
      h2 = Math.imul(h2 ^ ch, 1597334677)
    }
  }
  if (text.length <= HASHED_CHARS) mix(0, text.length)
  else {
    mix(0, HASHED_CHARS / 2)
    mix(text.length - HASHED_CHARS / 2, text.length)
    h1 = Math.imul(h1 ^ text.length, 2654435761)
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507)
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909)
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507)
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909)
  return 4_294_967_296 * (2_097_151 & h2) + (h1 >>> 0)
}
