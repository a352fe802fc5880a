/**
 * Requests Node's HTTP parser refuses before svc sees them (a control character in a header, headers
 * over 16 KiB, a bad Content-Length, broken chunked encoding, an unknown method, TLS on the HTTP port)
 * get the same JSON error body as everything else, instead of Node's bare `400 Bad Request`.
 */
import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import { errorBody } from '@svc/core'

/** Node's `clientError` codes that are not a plain 400. */
const STATUS_FOR: Record<string, number> = {
  HPE_HEADER_OVERFLOW: 431,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
  HPE_HEADERS_TIMEOUT: 408,
}

/**
 * The server's `clientError` listener. Writes an answer only when nothing was written on the socket
 * yet (as Node's own default does), then closes it: after a parse error the connection cannot be
 * reused.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable || socket.bytesWritten > 0) {
    socket.destroy()
    return
  }
  const status = STATUS_FOR[error.code ?? ''] ?? 400
  const body = JSON.stringify(
    status === 431
      ? errorBody('request.too_large', 'request headers (or the URL) are larger than 16 KiB')
      : status === 408
        ? errorBody('request.invalid', 'the request did not arrive in time')
        : errorBody('request.invalid', `malformed HTTP request (${error.code ?? 'parse error'})`),
  )
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  )
  socket.destroySoon()
}
