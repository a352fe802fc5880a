import { renderError as render, toSvcError } from '@svc/core'
import type { Logger } from '@svc/core/node'
import type { Context } from 'hono'

/**
 * The chat server's answer to any thrown error: svc's JSON error body (core's `renderError`). A page
 * navigation that is refused for want of a trusted identity gets a short HTML page instead of JSON,
 * so a person who opens the chat app past the proxy learns why.
 */
export function renderError(error: unknown, c: Context, logger: Logger): Response {
  const svc = toSvcError(error)
  if (svc.code === 'internal.error') logger.error('unhandled error', { path: c.req.path, error })
  if (svc.status === 401 && c.req.method === 'GET' && (c.req.header('accept') ?? '').includes('text/html')) {
    return c.html(refusedPage(svc.message), 401)
  }
  const rendered = render(svc)
  return c.body(rendered.body, rendered.status as 400, rendered.headers)
}

function refusedPage(message: string): string {
  const safe = message.replace(/[&<>"]/g, (ch) => `&#${ch.charCodeAt(0)};`)
  return `<!doctype html><meta charset="utf-8"><title>svc chat: sign in</title>
<body style="font:16px system-ui;max-width:40rem;margin:4rem auto;padding:0 1rem">
<h1>Not signed in</h1><p>${safe}.</p><p>Open the chat through the address your administrator gave you (for example <code>https://&lt;host&gt;/chat/</code>).</p></body>`
}
