import type { Attachment, Message } from '../store/types'

/** A chat message in OpenAI's request shape. */
export type OpenAiMessage =
  | { role: 'system' | 'assistant'; content: string }
  | {
      role: 'user'
      content: string | ({ type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } })[]
    }

/** Reads a stored file's bytes (for image attachments, sent as data URLs); undefined when gone. */
export type ReadFile = (attachment: Attachment) => Promise<Uint8Array | undefined>

/**
 * The request's `messages` for the conversation so far: the system prompt, then every text turn in
 * order. Image-generation turns are left out (they are not conversation), and so are answers that
 * failed with nothing written; reasoning is never sent back. Image attachments of user turns become
 * `image_url` parts with a data URL, so the API never needs to reach the chat server.
 */
export async function buildContext(
  system: string,
  history: readonly Message[],
  readFile: ReadFile,
): Promise<OpenAiMessage[]> {
  const out: OpenAiMessage[] = []
  if (system.trim() !== '') out.push({ role: 'system', content: system })
  for (const m of history) {
    if (m.kind !== 'text') continue
    if (m.role === 'assistant') {
      if (m.content === '' && m.status !== 'complete') continue
      out.push({ role: 'assistant', content: m.content })
      continue
    }
    const images = m.attachments.filter((a) => a.mime.startsWith('image/'))
    if (images.length === 0) {
      out.push({ role: 'user', content: m.content })
      continue
    }
    const parts: Exclude<Extract<OpenAiMessage, { role: 'user' }>['content'], string> = []
    if (m.content !== '') parts.push({ type: 'text', text: m.content })
    for (const image of images) {
      const bytes = await readFile(image)
      if (!bytes) continue
      parts.push({
        type: 'image_url',
        image_url: { url: `data:${image.mime};base64,${Buffer.from(bytes).toString('base64')}` },
      })
    }
    out.push({ role: 'user', content: parts })
  }
  return out
}
