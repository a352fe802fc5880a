/**
 * The OpenAI `POST /v1/images/generations` body svc accepts (OpenAI's images API) plus ComfyUI
 * extensions. `prompt` is required; `n` is the batch size (1–8); `size` is `WxH` (multiples of 8,
 * 64–2048 per side; absent or `auto` = the model's native size); `response_format` is `url` (default)
 * or `b64_json`. The extensions `seed`, `steps`, `cfg`, `negative_prompt` are read at the top level
 * (what the OpenAI SDKs' `extra_body` produces) and under a literal `extra_body` object. Every other
 * OpenAI field (`quality`, `style`, `user`, `output_format`, `background`, `moderation`, …) is
 * ignored; `null` counts as absent.
 *
 * Seeds are 0 … 2^64−1 (ComfyUI's range) and are kept exact as `bigint`: a JSON number up to 2^53−1,
 * a decimal string (any value in range), or a `bigint` (`exactSeeds` puts back the exact integer a
 * plain `JSON.parse` rounded). A JSON number above 2^53−1 that nobody restored is refused rather than
 * silently rounded: its low digits are already gone.
 */
import { isJsonObject, numberLiteralsAt, SvcError } from '@svc/core'
import * as v from 'valibot'

export const MAX_SEED = 2n ** 64n - 1n
/** Digits of 2^64−1: a longer integer literal is out of range without converting it. */
const MAX_SEED_DIGITS = 20
const SEED_RANGE = 'seed must be an integer from 0 to 18446744073709551615'

/** A seed as a `bigint`, or why the value is not one. */
export function toSeed(value: unknown): bigint | string {
  if (typeof value === 'bigint') return value >= 0n && value <= MAX_SEED ? value : SEED_RANGE
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < 0) return SEED_RANGE
    if (!Number.isSafeInteger(value)) {
      return 'seed above 2^53-1 (9007199254740991) must be sent as a decimal string, e.g. "18446744073709551615": a JSON number that large loses its last digits in JSON parsers'
    }
    return BigInt(value)
  }
  if (typeof value === 'string') {
    if (!/^\d{1,20}$/.test(value)) return `${SEED_RANGE} (as a string: decimal digits only)`
    const seed = BigInt(value)
    return seed <= MAX_SEED ? seed : SEED_RANGE
  }
  return SEED_RANGE
}

export const SeedSchema = v.pipe(
  v.unknown(),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const seed = toSeed(dataset.value)
    if (typeof seed === 'string') {
      addIssue({ message: seed })
      return NEVER
    }
    return seed
  }),
)

/**
 * An optional number field from `min` to `max`: an integer, or any finite number where `integer` is
 * false; each refusal names the field.
 */
function numberBetween(name: string, range: { min: number; max: number; integer: boolean }) {
  const between = `${name} must be between ${range.min} and ${range.max}`
  return v.nullish(
    v.pipe(
      v.number(`${name} must be a number`),
      range.integer ? v.integer(`${name} must be an integer`) : v.finite(`${name} must be a finite number`),
      v.minValue(range.min, between),
      v.maxValue(range.max, between),
    ),
  )
}

/** The extension fields, valid at the top level and under `extra_body`. */
export const ImageExtensionsSchema = v.looseObject({
  seed: v.nullish(SeedSchema),
  steps: v.nullish(
    v.pipe(
      v.number('steps must be a number'),
      v.integer('steps must be an integer'),
      v.minValue(1, 'steps must be at least 1'),
    ),
  ),
  cfg: numberBetween('cfg', { min: 0, max: 100, integer: false }),
  negative_prompt: v.nullish(
    v.pipe(v.string('negative_prompt must be a string'), v.maxLength(32000, 'negative_prompt is too long')),
  ),
})

const SIZE = /^(\d{1,5})x(\d{1,5})$/
const SIZE_RULE = 'size must be "WxH" with each side a multiple of 8 from 64 to 2048 (e.g. "512x512")'

function sizeOk(size: string): boolean {
  if (size === 'auto') return true
  const m = SIZE.exec(size)
  return !!m && [m[1], m[2]].every((s) => Number(s) >= 64 && Number(s) <= 2048 && Number(s) % 8 === 0)
}

export const ImageGenerationSchema = v.looseObject({
  ...ImageExtensionsSchema.entries,
  prompt: v.pipe(
    v.string('prompt is required and must be a string'),
    v.check((s) => s.trim().length > 0, 'prompt must not be empty'),
    v.maxLength(32000, 'prompt is too long (at most 32000 characters)'),
  ),
  n: numberBetween('n', { min: 1, max: 8, integer: true }),
  size: v.nullish(v.pipe(v.string(SIZE_RULE), v.check(sizeOk, SIZE_RULE))),
  response_format: v.nullish(v.picklist(['url', 'b64_json'], 'response_format must be "url" or "b64_json"')),
  extra_body: v.nullish(v.looseObject(ImageExtensionsSchema.entries, 'extra_body must be an object')),
})

/** A validated request, before the model's own rules (size multiple, steps limit) apply. */
export interface ImageJob {
  prompt: string
  negativePrompt?: string
  n: number
  /** Absent: the model's native size. */
  size?: { width: number; height: number }
  responseFormat: 'url' | 'b64_json'
  seed?: bigint
  steps?: number
  cfg?: number
}

const EXTENSIONS = ['seed', 'steps', 'cfg', 'negative_prompt'] as const
const SEED_PATHS = [['seed'], ['extra_body', 'seed']] as const

/**
 * `body` (from `JSON.parse(raw)`) with its seeds exact: where `seed` or `extra_body.seed` was parsed
 * to a number above 2^53−1 (rounded), the integer literal is read back from `raw` as a `bigint`.
 * Only these two fields, and only literals of at most 20 digits, are converted: any other number stays
 * what `JSON.parse` made it, and a longer seed literal becomes ±Infinity (refused as out of range,
 * 400 with `param`) — a number of millions of digits never reaches `BigInt` (whose cost grows with
 * the square of its length). Reads `raw` only when a seed needs it. Does not modify `body`.
 */
export function exactSeeds(body: Record<string, unknown>, raw: string): Record<string, unknown> {
  const nested = isJsonObject(body.extra_body) ? body.extra_body : undefined
  const rounded = (value: unknown) => typeof value === 'number' && !Number.isSafeInteger(value)
  if (!rounded(body.seed) && !rounded(nested?.seed)) return body
  const literals = numberLiteralsAt(raw, SEED_PATHS, { maxLength: MAX_SEED_DIGITS + 1 })
  const exact = (path: (typeof SEED_PATHS)[number], value: unknown): unknown => {
    const literal = literals.get(path)
    if (!rounded(value) || !literal?.integer) return value
    const digits = literal.text.replace(/^-/, '')
    if (literal.truncated || digits.length > MAX_SEED_DIGITS) {
      return literal.text.startsWith('-') ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY
    }
    return BigInt(literal.text)
  }
  const out: Record<string, unknown> = { ...body, seed: exact(SEED_PATHS[0], body.seed) }
  if (body.seed === undefined) delete out.seed
  if (nested) {
    out.extra_body = { ...nested, seed: exact(SEED_PATHS[1], nested.seed) }
    if (nested.seed === undefined) delete (out.extra_body as Record<string, unknown>).seed
  }
  return out
}

/**
 * Validates an images request body (`schema`: generations by default; edits and variations pass
 * theirs, image-edit-request.ts). Throws `SvcError('request.invalid')` whose `param` names the
 * field (`size`, `n`, `seed`, `extra_body.seed`, …).
 */
export function parseImageRequest(
  body: unknown,
  schema: v.GenericSchema<unknown, v.InferOutput<typeof ImageGenerationSchema>> = ImageGenerationSchema,
): ImageJob {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new SvcError('request.invalid', 'the request body must be a JSON object')
  }
  const r = v.safeParse(schema, body, { abortEarly: true })
  if (!r.success) {
    const issue = r.issues[0]
    throw new SvcError('request.invalid', issue.message, { param: v.getDotPath(issue) })
  }
  const out = r.output
  const nested = out.extra_body ?? {}
  const ext: Partial<Record<(typeof EXTENSIONS)[number], unknown>> = {}
  for (const key of EXTENSIONS) {
    const top = out[key]
    const inner = nested[key]
    const has = (x: unknown) => x !== undefined && x !== null
    if (has(top) && has(inner) && top !== inner) {
      throw new SvcError(
        'request.invalid',
        `${key} is given twice (top level and extra_body) with different values`,
        {
          param: `extra_body.${key}`,
        },
      )
    }
    ext[key] = has(top) ? top : has(inner) ? inner : undefined
  }
  const job: ImageJob = { prompt: out.prompt, n: out.n ?? 1, responseFormat: out.response_format ?? 'url' }
  if (out.size && out.size !== 'auto') {
    const [width, height] = out.size.split('x').map(Number) as [number, number]
    job.size = { width, height }
  }
  if (ext.seed !== undefined) job.seed = ext.seed as bigint
  if (ext.steps !== undefined) job.steps = ext.steps as number
  if (ext.cfg !== undefined) job.cfg = ext.cfg as number
  if (ext.negative_prompt !== undefined) job.negativePrompt = ext.negative_prompt as string
  return job
}
