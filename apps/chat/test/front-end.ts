/** Builds the chat front end once per test run (Vite), unless a build is already newer than the source. */
import { execFile } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { CHAT_APP_DIR } from './chat-process'

const exec = promisify(execFile)

function newest(dir: string): number {
  let t = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name)
    t = Math.max(t, entry.isDirectory() ? newest(full) : statSync(full).mtimeMs)
  }
  return t
}

export async function buildFrontEnd(): Promise<void> {
  const built = join(CHAT_APP_DIR, 'dist/index.html')
  const sources = Math.max(
    newest(join(CHAT_APP_DIR, 'src/web')),
    newest(join(CHAT_APP_DIR, '../../packages/ui/src')),
    statSync(join(CHAT_APP_DIR, 'index.html')).mtimeMs,
  )
  if (existsSync(built) && statSync(built).mtimeMs > sources) return
  await exec(process.execPath, [join(CHAT_APP_DIR, 'node_modules/vite/bin/vite.js'), 'build'], {
    cwd: CHAT_APP_DIR,
  })
}
