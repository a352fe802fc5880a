/** Where `pnpm bench` leaves its reports: bench/results/ (not committed, but the reference run). */
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { REPO_ROOT } from '@svc/testing'

export const RESULTS_DIR = join(REPO_ROOT, 'bench', 'results')

/** Writes `report` to bench/results/<timestamp of `at`>.md, making the folder; returns the path. */
export async function writeReport(report: string, at = new Date()): Promise<string> {
  await mkdir(RESULTS_DIR, { recursive: true })
  const path = join(RESULTS_DIR, `${at.toISOString().replace(/[:.]/g, '-')}.md`)
  await writeFile(path, report)
  return path
}
