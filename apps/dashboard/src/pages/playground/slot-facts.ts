/**
 * What the playground reads of a slot beyond the core snapshot: the fields issue 39's contract adds
 * to `GET /api/slots` and the events' slot objects (`serves`, `runnable`). Until the API sends them
 * they are absent and the playground falls back to the built-in slot names.
 */
import type { SlotFacts, SlotSnapshot } from '@svc/core'

/** A slot as the playground reads it: the snapshot, and `serves`/`runnable` when the API sends them. */
export type LiveSlot = SlotSnapshot & Partial<Pick<SlotFacts, 'serves' | 'runnable'>>

/** A kind of request the playground's tabs make: its word in `serves`, in `capabilities`, and in prose. */
export const KINDS = {
  chat: { serves: 'chat', capability: 'chat', slot: 'primary', noun: 'chat' },
  embeddings: { serves: 'embeddings', capability: 'embeddings', slot: 'embed', noun: 'embedding' },
  rerank: { serves: 'rerank', capability: 'rerank', slot: null, noun: 'rerank' },
  transcription: {
    serves: 'transcription',
    capability: 'transcriptions',
    slot: 'stt',
    noun: 'speech-to-text',
  },
  speech: { serves: 'speech', capability: 'speech', slot: 'tts', noun: 'text-to-speech' },
  images: { serves: 'images', capability: 'images', slot: 'img', noun: 'image' },
} as const

export type Kind = keyof typeof KINDS

/**
 * The slot that serves `kind`: the first whose `serves` names it; while the API sends no `serves`,
 * the built-in slot of that kind (`stt`, `tts`, `img`, `embed`, `primary`).
 */
export function slotServing(slots: readonly LiveSlot[], kind: Kind): LiveSlot | undefined {
  const declared = slots.filter((s) => s.serves !== undefined)
  if (declared.length > 0) return declared.find((s) => s.serves!.includes(KINDS[kind].serves))
  return slots.find((s) => s.name === KINDS[kind].slot)
}

/** Whether a slot can run on this machine (`runnable.ok`; true while the API does not say). */
export function runsHere(slot: LiveSlot): boolean {
  return slot.runnable?.ok ?? true
}
