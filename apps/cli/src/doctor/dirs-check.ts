/** `svc doctor`: the config and state directories exist and this user can write them (or create them). */
import { constants } from 'node:fs'
import { access, stat } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { Finding } from './finding'

export async function checkDir(what: string, variable: string, dir: string): Promise<Finding> {
  const label = `${what} ${dir} (${variable})`
  const st = await stat(dir).catch(() => undefined)
  if (st && !st.isDirectory())
    return { mark: 'fail', text: `${label}: not a directory`, fix: `move that file away, or set ${variable}` }
  // A directory that does not exist yet is made at the first start: its nearest parent must be writable.
  let at = dir
  while (!st && !(await stat(at).catch(() => undefined)) && dirname(at) !== at) at = dirname(at)
  const writable = await access(at, constants.W_OK | constants.X_OK).then(
    () => true,
    () => false,
  )
  if (writable)
    return { mark: 'ok', text: `${label}: ${st ? 'writable' : `made at first start (${at} is writable)`}` }
  return {
    mark: 'fail',
    text: `${label}: ${at} is not writable by this user`,
    fix: `run svc as the user that owns ${at} (installed: sudo -u svc …), or set ${variable} to a directory of yours`,
  }
}
