/**
 * The first step of an inference request: its body, read as its endpoint says. A JSON body is read
 * whole (capped) and validated against the endpoint's schema; a multipart upload is scanned only up
 * to its `model` field and the rest streams on to the upstream, under the same cap.
 */
import type { IncomingMessage } from 'node:http'
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
}

export async function readRequest(
  req: IncomingMessage,
  spec: EndpointSpec,
  caps: { maxJson: number; maxUpload: number },
): Promise<ReadRequest> {
  if (spec.body === 'multipart') {
    const scanned = await scanMultipartModel(req, caps.maxUpload)
    const body: ForwardBody = {
      kind: 'stream',
      head: scanned.head,
      rest: req,
      // The cap holds for the whole upload, with or without Content-Length.
      maxRestBytes: caps.maxUpload - scanned.bytesRead,
      limit: caps.maxUpload,
    }
    return { model: scanned.model, body, json: undefined, raw: undefined }
  }
  const raw = await readBody(req, caps.maxJson)
  const json = parseJsonBody(raw, req.headers['content-type'], spec.schema!) as Record<string, unknown>
  return {
    model: typeof json.model === 'string' ? json.model : undefined,
    body: { kind: 'buffer', data: raw },
    json,
    raw,
  }
}
