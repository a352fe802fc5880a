/** Where the bench's tools leave their reports: bench/results/ (not committed, but the reference runs). */
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { REPO_ROOT } from '@svc/testing'

export const RESULTS_DIR = join(REPO_ROOT, 'bench', 'results')

/** Writes `report` to bench/results/<prefix><timestamp of `at`>.md, making the folder; returns the path. */
export async function writeReport(prefix: string, report: string, at = new Date()): Promise<string> {
  await mkdir(RESULTS_DIR, { recursive: true })
  const path = join(RESULTS_DIR, `${prefix}${at.toISOString().replace(/[:.]/g, '-')}.md`)
  await writeFile(path, report)
  return path
}
