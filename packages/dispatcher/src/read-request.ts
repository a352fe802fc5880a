/**
 * The first step of an inference request: its body, read as its endpoint says. A JSON body is read
 * whole (capped) and validated against the endpoint's schema; a multipart upload is scanned only up
 * to its `model` field and the rest streams on to the upstream, under the same cap; a `form` upload
 * (image edits: the translator needs every file) is read whole under the upload cap and parsed.
 */
import type { IncomingMessage } from 'node:http'
import { readMultipartForm, SvcError } from '@svc/core'
import { parseJsonBody, readBody } from './body'
import type { EndpointSpec } from './endpoints'
import { scanMultipartModel } from './multipart-model'
import type { ForwardBody } from './proxy'

export interface ReadRequest {
  model: string | undefined
  body: ForwardBody
  /** The parsed JSON body; undefined for multipart. */
  json: Record<string, unknown> | undefined
  raw: Buffer | undefined
  /** A `form` endpoint's upload, parsed (its bytes are `body`). */
  form?: FormData
}

export function readRequest(
  req: IncomingMessage,
  spec: EndpointSpec,
  caps: { maxJson: number; maxUpload: number },
): Promise<ReadRequest> {
  if (spec.body === 'form') return readForm(req, caps.maxUpload)
  if (spec.body === 'multipart') return readMultipart(req, caps.maxUpload)
  // Not an async function: the JSON body (every chat) waits on one promise, not three.
  return readBody(req, caps.maxJson).then((raw) => {
    const contentType = req.headers['content-type']
    const json = parseJsonBody(raw, contentType, spec.schema!, spec.accepts) as Record<string, unknown>
    return {
      model: typeof json.model === 'string' ? json.model : undefined,
      body: { kind: 'buffer', data: raw },
      json,
      raw,
    }
  })
}

/** An upload scanned up to its `model` field; the rest streams on, under the same cap. */
async function readMultipart(req: IncomingMessage, limit: number): Promise<ReadRequest> {
  const scanned = await scanMultipartModel(req, limit)
  const body: ForwardBody = {
    kind: 'stream',
    head: scanned.head,
    rest: req,
    // The cap holds for the whole upload, with or without Content-Length.
    maxRestBytes: limit - scanned.bytesRead,
    limit,
  }
  return { model: scanned.model, body, json: undefined, raw: undefined }
}

/** A whole multipart upload (413 over `limit`, 400 when it is not multipart or does not parse). */
async function readForm(req: IncomingMessage, limit: number): Promise<ReadRequest> {
  const data = await readBody(req, limit)
  const contentType = req.headers['content-type'] ?? ''
  const form = await readMultipartForm(
    new Request('http://svc.invalid/', {
      method: 'POST',
      body: data as Uint8Array<ArrayBuffer>,
      headers: { 'content-type': contentType },
    }),
    { message: 'expected a multipart/form-data upload with an image', param: 'image' },
  )
  const model = form.get('model')
  if (model !== null && (typeof model !== 'string' || model === '' || model.length > 256)) {
    throw new SvcError('request.invalid', 'model must be a model name', { param: 'model' })
  }
  return { model: model ?? undefined, body: { kind: 'buffer', data }, json: undefined, raw: undefined, form }
}
