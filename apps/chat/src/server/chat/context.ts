import type { Attachment, Message } from '../store/types'

/** A chat message in OpenAI's request shape. */
export type OpenAiMessage =
  | { role: 'system' | 'assistant'; content: string }
  | {
      role: 'user'
      content: string | ({ type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } })[]
    }

type UserPart = Exclude<Extract<OpenAiMessage, { role: 'user' }>['content'], string>[number]

/** Reads a stored file's bytes (for image attachments, sent as data URLs); undefined when gone. */
export type ReadFile = (attachment: Attachment) => Promise<Uint8Array | undefined>

/** How many images, and how many of their bytes, one request may carry to the model. */
export interface ImageBudget {
  count: number
  bytes: number
}

/**
 * Only the newest images of a conversation go to the model: at most 8 (as many as one message may
 * carry) and 20 MB of them (about 27 MB as data URLs, under the API's 32 MB body limit). Without a
 * bound every turn would read and encode every image the conversation ever had. Older ones become a
 * text note, so the model knows something was there; the person still sees them all.
 */
export const IMAGE_BUDGET: ImageBudget = { count: 8, bytes: 20 * 1024 * 1024 }

/** What stands in for images left out of a request. */
export function omittedNote(n: number): string {
  return `[${n === 1 ? 'an image' : `${n} images`} omitted: only the newest images of a conversation are sent to the model]`
}

/**
 * The request's `messages` for the conversation so far: the system prompt, then every text turn in
 * order. Image-generation turns are left out (they are not conversation), and so are answers that
 * failed with nothing written; reasoning is never sent back. Image attachments of user turns become
 * `image_url` parts with a data URL, so the API never needs to reach the chat server, within `budget`
 * counted from the newest: the first image that does not fit, and every older one, is a note instead
 * (so at most `budget.count + 1` files are read).
 */
export async function buildContext(
  system: string,
  history: readonly Message[],
  readFile: ReadFile,
  budget: ImageBudget = IMAGE_BUDGET,
): Promise<OpenAiMessage[]> {
  const sent = await newestImages(history, readFile, budget)
  const out: OpenAiMessage[] = []
  if (system.trim() !== '') out.push({ role: 'system', content: system })
  for (const m of history) {
    if (m.kind !== 'text') continue
    if (m.role === 'assistant') {
      if (m.content === '' && m.status !== 'complete') continue
      out.push({ role: 'assistant', content: m.content })
      continue
    }
    const images = m.attachments.filter(isImage)
    if (images.length === 0) {
      out.push({ role: 'user', content: m.content })
      continue
    }
    const parts: UserPart[] = []
    if (m.content !== '') parts.push({ type: 'text', text: m.content })
    let omitted = 0
    for (const image of images) {
      const url = sent.get(image)
      if (url) parts.push({ type: 'image_url', image_url: { url } })
      else if (url === undefined) omitted++
      // null: the file is gone; nothing to say about it
    }
    if (omitted > 0) parts.push({ type: 'text', text: omittedNote(omitted) })
    out.push({ role: 'user', content: parts })
  }
  return out
}

const isImage = (a: Attachment) => a.mime.startsWith('image/')

/**
 * The data URLs of the newest images that fit the budget, by attachment; `null` for a file that is
 * gone. An attachment not in the map is left out.
 */
async function newestImages(
  history: readonly Message[],
  readFile: ReadFile,
  budget: ImageBudget,
): Promise<Map<Attachment, string | null>> {
  const sent = new Map<Attachment, string | null>()
  const images = history
    .filter((m) => m.kind === 'text' && m.role === 'user')
    .flatMap((m) => m.attachments.filter(isImage))
  let count = 0
  let bytes = 0
  for (let i = images.length - 1; i >= 0 && count < budget.count; i--) {
    const image = images[i]!
    const data = await readFile(image)
    if (!data) {
      sent.set(image, null)
      continue
    }
    if (bytes + data.byteLength > budget.bytes) break
    count++
    bytes += data.byteLength
    sent.set(image, `data:${image.mime};base64,${Buffer.from(data).toString('base64')}`)
  }
  return sent
}
