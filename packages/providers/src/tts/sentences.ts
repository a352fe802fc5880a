/**
 * Cutting a speech input into the pieces svc synthesises one after another when it streams speech
 * (speech-stream.ts). Sentences by `Intl.Segmenter` (Unicode's sentence breaks, every script Node's
 * ICU knows), then glued so that no piece is too short to be worth its own engine request: the
 * segmenter also breaks after abbreviations ("Dr. ", "e.g. "), and a piece with nothing to say
 * (whitespace, a lone "…") would make an engine fail or add a pause of its own.
 */

/** A piece shorter than this (letters and digits) joins the sentence after it. */
export const MIN_SENTENCE_CHARS = 20

const SAYABLE = /[\p{L}\p{N}]/gu

const segmenters = new Map<string, Intl.Segmenter>()

function segmenter(locale: string): Intl.Segmenter {
  let s = segmenters.get(locale)
  if (!s) {
    s = new Intl.Segmenter(locale, { granularity: 'sentence' })
    segmenters.set(locale, s)
  }
  return s
}

const sayable = (text: string) => text.match(SAYABLE)?.length ?? 0

/**
 * The pieces of `text` in order, each with its own whitespace trimmed; joined they hold every
 * sayable character of `text`. One piece for a text of one sentence (or a short one); none for a
 * text with nothing to say. `locale` is a BCP 47 tag for the segmenter (default `en`; the sentence
 * rules differ little between languages).
 */
export function splitSentences(text: string, locale = 'en'): string[] {
  const pieces: string[] = []
  let pending = ''
  for (const { segment } of segmenter(locale).segment(text)) {
    pending += segment
    if (sayable(pending) >= MIN_SENTENCE_CHARS) {
      pieces.push(pending.trim())
      pending = ''
    }
  }
  // What is left: its own piece when it says something, else the tail of the last piece.
  if (sayable(pending) > 0 || pieces.length === 0) {
    if (pending.trim()) pieces.push(pending.trim())
  } else if (pending.trim()) {
    pieces[pieces.length - 1] = `${pieces.at(-1)} ${pending.trim()}`
  }
  return pieces
}

/** Whether `text` is more than one piece: cheap for the usual short input (no segmenting at all). */
export function hasSeveralSentences(text: string): boolean {
  if (text.length <= MIN_SENTENCE_CHARS) return false
  return splitSentences(text).length > 1
}

/** Most sentences in one engine request when streaming (see {@link streamPieces}). */
export const MAX_PIECE_SENTENCES = 8

/**
 * The sentences grouped into the engine requests of a streamed answer: the first alone (the first
 * audio comes as soon as one sentence is spoken), then twice as many each time up to
 * {@link MAX_PIECE_SENTENCES}: later pieces are synthesised while the earlier ones play, and each
 * engine request has its cost (espeak-ng starts a process per request: 24 requests for 24 sentences
 * took four times as long as one for the whole text).
 */
export function streamPieces(sentences: readonly string[]): string[] {
  const pieces: string[] = []
  for (
    let at = 0, size = 1;
    at < sentences.length;
    at += size, size = Math.min(size * 2, MAX_PIECE_SENTENCES)
  )
    pieces.push(sentences.slice(at, at + size).join(' '))
  return pieces
}
