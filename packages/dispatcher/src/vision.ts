/**
 * Image parts at the edge. llama-server answers an `image_url` part for a model loaded without a
 * projector with a 500 ("image input is not supported - hint: … provide the mmproj"), which svc
 * would pass on as a 502; the request is what is wrong, so svc refuses it first with a 400 that names
 * `messages` and says which models can see.
 */
import { type ModelEntry, modelCapabilities, SvcError } from '@svc/core'

/** Dotted path of the first `image_url` content part (`messages.0.content.1`), or undefined. */
export function firstImagePart(body: Record<string, unknown>): string | undefined {
  const messages = body.messages
  if (!Array.isArray(messages)) return undefined
  for (const [i, message] of messages.entries()) {
    const content = (message as { content?: unknown } | null)?.content
    if (!Array.isArray(content)) continue
    for (const [j, part] of content.entries()) {
      if ((part as { type?: unknown } | null)?.type === 'image_url') return `messages.${i}.content.${j}`
    }
  }
  return undefined
}

/**
 * Throws 400 `request.invalid` (param `messages`) when a chat request carries an image for an llm
 * model that has no vision projector. Other providers (the NPU's vision models, third-party ones)
 * judge images themselves, so they are let through.
 */
export function refuseImagesWithoutVision(
  body: Record<string, unknown>,
  model: Pick<ModelEntry, 'id' | 'provider' | 'role' | 'mmproj' | 'extraCapabilities'>,
  slot: string,
): void {
  if (model.provider !== 'llm') return
  const part = firstImagePart(body)
  if (!part || modelCapabilities(model).includes('vision')) return
  throw new SvcError(
    'request.invalid',
    `${part} is an image, but model "${model.id}" in slot "${slot}" does not accept images (it has no vision projector); load a model whose capabilities include "vision" (GET /v1/models), or one with --mmproj`,
    { param: 'messages' },
  )
}
