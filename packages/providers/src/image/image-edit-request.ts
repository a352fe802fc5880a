/**
 * OpenAI's `POST /v1/images/edits` and `/v1/images/variations` multipart bodies, read into an edit
 * job. Fields as for generations (`prompt`, `n`, `size`, `response_format` and the extensions `seed`,
 * `steps`, `cfg`, `negative_prompt`, also as `extra_body[<name>]`) plus `strength` (top level, 0–1, the
 * sampler's denoise: how far the result may move from the image). Files:
 *
 * - `image` (also `image[]`, as the `openai` client names a list): exactly one PNG, JPEG or WebP
 *   (the format is read from the bytes), at most `MAX_IMAGE_SIDE` pixels per side. The curated graphs
 *   edit one picture; several are refused, not silently cut to the first.
 * - `mask` (edits only, optional): a PNG with an alpha channel, the image's size; its fully
 *   transparent pixels mark where to edit (OpenAI's convention, which ComfyUI's LoadImageMask
 *   `alpha` turns into its own MASK = 1 − alpha/255 without any help).
 *
 * Form values are text: numbers are read from their decimal text; `seed` stays text (exact up to
 * 2^64 − 1). Every refusal is 400 `request.invalid` with `param`.
 */
import { SvcError } from '@svc/core'
import * as v from 'valibot'
import { type ImageFacts, probeImage } from './image-probe'
import { ImageGenerationSchema, type ImageJob, parseImageRequest } from './image-request'

/** Largest width or height of an uploaded image (pixels). */
export const MAX_IMAGE_SIDE = 4096

/** An uploaded picture: its bytes and what its header says. */
export interface EditUpload {
  bytes: Uint8Array
  facts: ImageFacts
}

export interface EditJob extends ImageJob {
  image: EditUpload
  mask?: EditUpload
  /** The sampler's denoise (0–1]; undefined keeps the template's. */
  strength?: number
}

const strength = v.nullish(
  v.pipe(
    v.number('strength must be a number'),
    v.gtValue(0, 'strength must be above 0 and at most 1'),
    v.maxValue(1, 'strength must be above 0 and at most 1'),
  ),
)

export const ImageEditSchema = v.looseObject({ ...ImageGenerationSchema.entries, strength })

/** Variations take no prompt (an empty one is sent to the graph). */
export const ImageVariationSchema = v.looseObject({
  ...ImageGenerationSchema.entries,
  prompt: v.optional(v.pipe(v.string('prompt must be a string'), v.maxLength(32000)), ''),
  strength,
})

const NUMBERS = new Set(['n', 'steps', 'cfg', 'strength'])
const FILES = new Set(['image', 'image[]', 'mask'])

function numeric(key: string, value: string): string | number {
  return NUMBERS.has(key) && /^\s*-?\d+(\.\d+)?(e[+-]?\d+)?\s*$/i.test(value) ? Number(value) : value
}

/** The form's text fields as a body object (first value of a repeated field wins). */
export function formFields(form: FormData): Record<string, unknown> {
  const body: Record<string, unknown> = {}
  const extra: Record<string, unknown> = {}
  for (const [key, value] of form) {
    if (FILES.has(key) || typeof value !== 'string') continue
    const nested = /^extra_body\[(\w+)\]$/.exec(key)?.[1]
    if (nested !== undefined) extra[nested] ??= numeric(nested, value)
    else if (!(key in body)) body[key] = numeric(key, value)
  }
  if (Object.keys(extra).length > 0) body.extra_body = extra
  return body
}

function invalid(message: string, param: string): SvcError {
  return new SvcError('request.invalid', message, { param })
}

async function upload(file: FormDataEntryValue, param: string): Promise<EditUpload> {
  if (typeof file === 'string') {
    throw invalid(`${param} must be a file upload (multipart part with a file name), not a text field`, param)
  }
  const bytes = new Uint8Array(await file.arrayBuffer())
  const facts = probeImage(bytes)
  if (!facts) throw invalid(`${param} must be a PNG, JPEG or WebP image`, param)
  if (facts.width > MAX_IMAGE_SIDE || facts.height > MAX_IMAGE_SIDE) {
    throw invalid(
      `${param} is too large: ${facts.width}×${facts.height} pixels; at most ${MAX_IMAGE_SIDE} per side`,
      param,
    )
  }
  return { bytes, facts }
}

/**
 * Reads and checks an edit (`variation` false) or variation request. Throws 400 `request.invalid`
 * naming `image`, `mask` or the field at fault.
 */
export async function parseEditForm(form: FormData, variation: boolean): Promise<EditJob> {
  const fields = formFields(form)
  const job = parseImageRequest(fields, variation ? ImageVariationSchema : ImageEditSchema)
  const images = [...form.getAll('image'), ...form.getAll('image[]')]
  if (images.length === 0) {
    throw invalid('image is required: the picture to edit (a PNG, JPEG or WebP file)', 'image')
  }
  if (images.length > 1) {
    throw invalid(
      `send one image: this server's image models edit one picture per request (got ${images.length})`,
      'image',
    )
  }
  const image = await upload(images[0]!, 'image')
  const edit: EditJob = { ...job, image }
  // validated by the schema: a number in (0, 1], or absent
  if (typeof fields.strength === 'number') edit.strength = fields.strength
  const maskPart = form.get('mask')
  if (maskPart !== null) {
    if (variation) throw invalid('variations take no mask', 'mask')
    const mask = await upload(maskPart, 'mask')
    if (mask.facts.format !== 'png' || !mask.facts.hasAlpha) {
      throw invalid('mask must be a PNG with an alpha channel (fully transparent where to edit)', 'mask')
    }
    const { width, height } = image.facts
    if (mask.facts.width !== width || mask.facts.height !== height) {
      throw invalid(
        `mask must be the size of the image (${width}×${height}), not ${mask.facts.width}×${mask.facts.height}`,
        'mask',
      )
    }
    edit.mask = mask
  }
  return edit
}
