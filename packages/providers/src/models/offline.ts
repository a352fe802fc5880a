/**
 * Connection errors that mean "no network here" (no name resolution, no route) rather than "that
 * server is down": people can act on the first (work offline with a local file, fix the network),
 * so the Hub's and the downloader's errors say it in those words.
 */
const OFFLINE_CODES: ReadonlySet<string> = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ENETDOWN',
])

/** Whether a Node/undici error code (`cause.code` of a failed fetch) means this machine is offline. */
export function looksOffline(code: string | undefined): boolean {
  return code !== undefined && OFFLINE_CODES.has(code)
}

/** What to do without the network, appended to an offline error. */
export const OFFLINE_WAY_ON = 'load a local .gguf by path instead'
