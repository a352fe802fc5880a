/**
 * A multipart upload read whole, for a slot whose provider may take such a request over (the stt
 * provider's streaming transcription, `stream=true`). Only those slots pay for it: every other
 * upload streams on to its upstream as `read-request.ts` left it. whisper-server needs the whole
 * file before it starts anyway, so reading it first costs a copy, not latency.
 *
 * The form is parsed only when the body has a `stream` field at all (one `indexOf` over the bytes
 * otherwise): a plain transcription is sent on byte for byte, with no parse.
 */
import type { IncomingMessage } from 'node:http'
import { readMultipartForm } from '@svc/core'
import { uploadTooLarge } from './body'
import type { ForwardBody } from './forward-types'

/** The upload as one buffer (to send on unchanged), and its form fields when it has a `stream` one. */
export interface WholeUpload {
  body: Extract<ForwardBody, { kind: 'buffer' }>
  /** Text fields as strings, files as `File`; a repeated name keeps the last. Undefined: no `stream` field. */
  fields: Record<string, unknown> | undefined
}

/** How a part header names the `stream` field (quoted, as every SDK writes it, or a bare token). */
const STREAM_NAMES = ['name="stream"', 'name=stream\r', 'name=stream;'].map((s) => Buffer.from(s, 'latin1'))

/**
 * Reads the rest of a streamed multipart body (under its cap: 413 `request.too_large`) and, when it
 * names a `stream` field, its fields (a body that does not parse is 400 `request.invalid`).
 */
export async function readWholeUpload(
  body: Extract<ForwardBody, { kind: 'stream' }>,
  req: IncomingMessage,
): Promise<WholeUpload> {
  const chunks = [...body.head]
  let rest = 0
  for await (const chunk of body.rest as AsyncIterable<Buffer>) {
    rest += chunk.length
    if (rest > body.maxRestBytes) throw uploadTooLarge(req, body.limit)
    chunks.push(chunk)
  }
  const data = Buffer.concat(chunks)
  const whole: WholeUpload['body'] = { kind: 'buffer', data }
  if (!STREAM_NAMES.some((name) => data.includes(name))) return { body: whole, fields: undefined }
  const contentType = req.headers['content-type'] ?? ''
  const form = await readMultipartForm(
    new Request('http://svc.invalid/', {
      method: 'POST',
      body: data,
      headers: { 'content-type': contentType },
    }),
    { message: 'expected a multipart/form-data upload', param: 'file' },
  )
  const fields: Record<string, unknown> = {}
  for (const [name, value] of form) fields[name] = value
  return { body: whole, fields }
}

/** The last bytes of an answer's body, kept as it streams by, for the usage at its end. */
const TAIL_BYTES = 4096

/** `response` with its body passed through a tap that keeps the last few KB (`text()`). */
export function keepTail(response: Response): { response: Response; text: () => string } {
  let tail = Buffer.alloc(0)
  const tap = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      const joined = Buffer.concat([tail, chunk])
      tail = joined.subarray(Math.max(0, joined.length - TAIL_BYTES))
      controller.enqueue(chunk)
    },
  })
  if (!response.body) return { response, text: () => '' }
  const tapped = new Response(response.body.pipeThrough(tap), {
    status: response.status,
    headers: response.headers,
  })
  return { response: tapped, text: () => tail.toString('utf8') }
}
