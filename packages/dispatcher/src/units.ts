/**
 * What a request asks for besides tokens, read from its JSON body (already parsed and validated) or
 * its form: the characters a speech request turns into audio and the images a generation or an edit
 * asks for. Audio
 * seconds in (transcriptions) come from the answer instead (`Usage.audioSeconds`).
 */
import type { Endpoint } from '@svc/core'

export interface RequestUnits {
  /** Characters of `input` sent to text-to-speech. */
  characters?: number
  /** Images asked for (`n`, default 1). Counted only when the answer is a success. */
  images?: number
}

export function requestUnits(endpoint: Endpoint, json: Record<string, unknown>): RequestUnits | undefined {
  if (endpoint === 'speech' && typeof json.input === 'string') return { characters: [...json.input].length }
  if (endpoint === 'images') {
    const n = json.n
    return { images: typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : 1 }
  }
  return undefined
}

/** The same for a `form` upload (image edits and variations): `n` is text there. */
export function formUnits(endpoint: Endpoint, form: FormData): RequestUnits | undefined {
  const n = form.get('n')
  return requestUnits(endpoint, typeof n === 'string' ? { n: Number(n) } : {})
}
