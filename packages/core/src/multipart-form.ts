import { SvcError } from './errors'

/** How a refused upload is described: the message, and the form field a client must send. */
export interface UploadRefusal {
  message: string
  param: string
  /** The message for a multipart body that does not parse (default: `message`). */
  unreadable?: string
}

/**
 * The `multipart/form-data` body of `request` (an upload: a voice sample, a recording). A body of
 * another type, or one that does not parse, is 400 `request.invalid` with `refusal`'s message and
 * param, never a 500. Reads the whole body: put a body size limit in front of it.
 */
export async function readMultipartForm(request: Request, refusal: UploadRefusal): Promise<FormData> {
  const invalid = (message: string) => new SvcError('request.invalid', message, { param: refusal.param })
  if (!/^multipart\/form-data/i.test(request.headers.get('content-type') ?? ''))
    throw invalid(refusal.message)
  return request.formData().catch(() => {
    throw invalid(refusal.unreadable ?? refusal.message)
  })
}
