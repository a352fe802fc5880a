/**
 * `svc token` on the file (the API is down, or wants credentials the CLI lacks): who must be able to
 * read tokens.toml afterwards, and a check that they still can.
 *
 * Rule: tokens.toml belongs to the user the API runs as. An existing file keeps its owner, group and
 * mode whoever writes it (the token store's atomic write copies them onto the new file before the
 * rename). Run as root with no file yet, the new file is given to the owner of the state dir when
 * that is not root (an installed box: /var/lib/svc is the svc user's). After the write the CLI checks
 * that the file still belongs to that user and is readable by them; if not, it fails (exit 1) and
 * says what to chown, rather than report a change the API cannot see.
 */
import { lstat, stat } from 'node:fs/promises'
import { CliError } from '../context'

export interface FileOwner {
  uid: number
  gid: number
}

/** Who must read `tokens.toml` after this write: its owner now, or (as root, no file) the state dir's. */
export async function expectedReader(tokensPath: string, stateDir: string): Promise<FileOwner | undefined> {
  const now = await lstat(tokensPath).catch(() => undefined)
  if (now?.isFile()) return { uid: now.uid, gid: now.gid }
  if (process.getuid?.() !== 0) return undefined // a user's own install: the file is theirs
  const state = await stat(stateDir).catch(() => undefined)
  return state && state.uid !== 0 ? { uid: state.uid, gid: state.gid } : undefined
}

/** Throws when `tokensPath` (if present) is no longer owned and readable by `reader`. */
export async function checkStillReadable(tokensPath: string, reader: FileOwner | undefined): Promise<void> {
  if (!reader) return
  const st = await lstat(tokensPath).catch(() => undefined)
  if (!st) return
  if (st.uid === reader.uid && st.mode & 0o400) return
  const mode = (st.mode & 0o7777).toString(8).padStart(4, '0')
  throw new CliError(
    `${tokensPath} now belongs to uid ${st.uid} (mode ${mode}), not uid ${reader.uid} who must read it: the API does not see this change. Run: chown ${reader.uid}:${reader.gid} ${tokensPath} && chmod 600 ${tokensPath}`,
  )
}
