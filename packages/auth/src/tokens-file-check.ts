import { join } from 'node:path'
import { readSnapshot } from './file-snapshot'
import { TOKENS_FILE } from './token-store'
import { parseTokensFile } from './tokens-file'

/**
 * Whether `<configDir>/tokens.toml` can be used: null when it parses or does not exist, else the
 * problem (naming the file and the line). The API refuses to start on a problem rather than run
 * with no tokens; nothing is written. A file it may not read (its owner or mode: a root-owned copy)
 * is no reason to refuse: the API starts with no tokens in force (every bearer is refused, and the
 * token store says why, naming owner and mode) and takes the file up once it is readable.
 */
export async function checkTokensFile(configDir: string): Promise<string | null> {
  const path = join(configDir, TOKENS_FILE)
  let read: Awaited<ReturnType<typeof readSnapshot>>
  try {
    read = await readSnapshot(path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EACCES' || code === 'EPERM') return null
    return `cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`
  }
  if (read === null) return null
  const parsed = parseTokensFile(read.text, path)
  return parsed.ok ? null : parsed.error
}
