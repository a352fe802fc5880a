import type { ForwardBody } from './proxy'

/**
 * A multipart body with form fields put in front of the client's parts (a provider's
 * `multipartFields`): streamed, or read whole (`whole-upload.ts`). The boundary is the client's own,
 * from its Content-Type; a body without one is returned as it is.
 */
export function prependFields(
  body: ForwardBody,
  fields: Readonly<Record<string, string>>,
  contentType: string | undefined,
): ForwardBody {
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? '')
  const mark = boundary?.[1] ?? boundary?.[2]
  if (!mark) return body
  const parts = Object.entries(fields).map(
    ([name, value]) => `--${mark}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  )
  const prefix = Buffer.from(parts.join(''))
  if (body.kind === 'buffer') return { kind: 'buffer', data: Buffer.concat([prefix, body.data]) }
  return { ...body, head: [prefix, ...body.head], added: (body.added ?? 0) + prefix.length }
}
