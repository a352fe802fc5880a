import { chmod, mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { REPO_ROOT } from '../api-process'

const CLI = fileURLToPath(new URL('./flm-cli.ts', import.meta.url))
// tsx's loader in this process (not its CLI, which forks): the program is one process, like flm.
const TSX_LOADER = pathToFileURL(join(REPO_ROOT, 'node_modules/tsx/dist/loader.mjs')).href

/**
 * Writes an executable `flm` into `dir` that runs the stand-in's CLI (`flm serve …`), so a test can
 * put `dir` on PATH and start it the way svc starts the real FastFlowLM. Returns its path.
 */
export async function writeFlmProgram(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true })
  const path = join(dir, 'flm')
  await writeFile(path, `#!/bin/sh\nexec "${process.execPath}" --import "${TSX_LOADER}" "${CLI}" "$@"\n`)
  await chmod(path, 0o755)
  return path
}

/**
 * The stand-in as an argv prefix (`node --import <tsx> flm-cli.ts`): append `serve …`. Unlike the
 * script `writeFlmProgram` writes, the process's /proc cmdline is exactly this argv, so a runtime that
 * recognises its own leftovers by cmdline (the process runtime's `recover`) recognises this one.
 */
export function flmStandInCommand(): string[] {
  return [process.execPath, '--import', TSX_LOADER, CLI]
}
