/**
 * Clear words for a tokens.toml that this process cannot read or replace: who owns it, its mode, and
 * who this process runs as, so the operator sees at once what to chown (the installed API runs as
 * the `svc` user; `sudo svc token …` as root).
 */
import { lstat } from 'node:fs/promises'
import { SvcError } from '@svc/core'

/** `owner uid 0, gid 0, mode 0600; this process runs as uid 999, gid 999` (or why it cannot say). */
export async function describeAccess(path: string): Promise<string> {
  const me = process.getuid ? `; this process runs as uid ${process.getuid()}, gid ${process.getgid?.()}` : ''
  try {
    const st = await lstat(path)
    const mode = (st.mode & 0o7777).toString(8).padStart(4, '0')
    return `owner uid ${st.uid}, gid ${st.gid}, mode ${mode}${me}`
  } catch (error) {
    return `${(error as NodeJS.ErrnoException).code ?? 'cannot stat it'}${me}`
  }
}

/**
 * The error for a tokens.toml that cannot be read or written: 409 `config.invalid` naming the file,
 * its owner and mode (not a 500: nothing is wrong with the request, and the fix is the operator's).
 * Errors that are not about access pass through.
 */
export async function accessError(path: string, doing: 'read' | 'replace', error: unknown): Promise<unknown> {
  const code = (error as NodeJS.ErrnoException).code
  const ownerKept = error instanceof Error && error.message.startsWith('cannot keep the owner')
  if (code !== 'EACCES' && code !== 'EPERM' && !ownerKept) return error
  return new SvcError(
    'config.invalid',
    `cannot ${doing} ${path} (${await describeAccess(path)}): ${ownerKept ? (error as Error).message : code}; it must belong to the user the API runs as (svc when installed), mode 0600`,
  )
}
