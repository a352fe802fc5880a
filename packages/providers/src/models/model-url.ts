/**
 * Model URLs and the file names derived from them.
 *
 * A pulled model is stored as `<state>/models/<ref>/<file>`, `<file>` taken from the last segment
 * of the URL's path. That segment is the client's to choose, so it is made safe before it touches
 * the disk: percent-decoded once, every `/` and `\` (which `%2F` and `%5C` can smuggle in) and
 * control character replaced by `_`, leading dots removed (no `..`, no hidden files), and the length
 * capped. The result is always a single plain name inside the model's own directory.
 */
import { extname } from 'node:path'
import { SvcError } from '@svc/core'

/** Longest stored file name, in UTF-16 units (file systems allow 255 bytes; UTF-8 may need 3 per unit). */
const MAX_NAME = 80

/**
 * Parses what a client gave as a model URL: http(s) only, with a path whose last segment decodes.
 * Throws 400 `request.invalid` (param `model`) otherwise — never a 500 for a bad `%` escape.
 */
export function parseModelUrl(spec: string): URL {
  let url: URL
  try {
    url = new URL(spec)
  } catch {
    throw new SvcError('request.invalid', `"${spec}" is not a valid URL`, { param: 'model' })
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SvcError('request.invalid', 'model URLs must be http or https', { param: 'model' })
  }
  try {
    decodeURIComponent(lastSegment(url))
  } catch {
    throw new SvcError(
      'request.invalid',
      `the URL's file name "${lastSegment(url)}" has an invalid %-escape`,
      { param: 'model' },
    )
  }
  return url
}

/**
 * The safe file name for a model pulled from `url` (see the module comment), or undefined when
 * nothing usable is left (the caller then names the file after the ref). Never throws: an invalid
 * `%` escape is kept as it is (`%` is harmless in a file name).
 */
export function fileNameFromUrl(url: URL): string | undefined {
  const raw = lastSegment(url)
  let name: string
  try {
    name = decodeURIComponent(raw)
  } catch {
    name = raw
  }
  name = name
    .replace(/[/\\\p{Cc}]/gu, '_')
    .trim()
    .replace(/^\.+/, '')
  if (name.length > MAX_NAME) {
    const ext = extname(name).slice(0, 16)
    name = name.slice(0, MAX_NAME - ext.length) + ext
  }
  return name.length > 0 ? name : undefined
}

function lastSegment(url: URL): string {
  return url.pathname.slice(url.pathname.lastIndexOf('/') + 1)
}

/** `new URL(text)`, or undefined when `text` is not a URL (a registry entry edited by hand). */
export function urlOrUndefined(text: string): URL | undefined {
  try {
    return new URL(text)
  } catch {
    return undefined
  }
}
