import { join } from 'node:path'
import { readSnapshot } from './file-snapshot'
import { TOKENS_FILE } from './token-store'
import { parseTokensFile } from './tokens-file'

/**
 * Whether `<configDir>/tokens.toml` can be used: null when it parses or does not exist, else the
 * problem (naming the file and the line). The API refuses to start on a problem rather than run
 * with no tokens; nothing is written.
 */
export async function checkTokensFile(configDir: string): Promise<string | null> {
  const path = join(configDir, TOKENS_FILE)
  let read: Awaited<ReturnType<typeof readSnapshot>>
  try {
    read = await readSnapshot(path)
  } catch (error) {
    return `cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`
  }
  if (read === null) return null
  const parsed = parseTokensFile(read.text, path)
  return parsed.ok ? null : parsed.error
}
