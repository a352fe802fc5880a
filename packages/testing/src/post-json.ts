/**
 * POSTs `body` as JSON (`content-type: application/json`) to `url`: the request tests send to an
 * OpenAI-compatible server (llama-server, a stand-in, svc itself). `init` adds headers (merged over
 * the content type) and a signal. Resolves with the Response whatever its status.
 */
export function postJson(
  url: string | URL,
  body: unknown,
  init: { headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...init.headers },
    body: JSON.stringify(body),
    ...(init.signal ? { signal: init.signal } : {}),
  })
}
