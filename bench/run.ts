/**
 * `pnpm bench`: svc measured where users feel it, side by side with its peers in one run on this
 * machine, each section reported as goals (measure, value, target, met).
 *
 * Sections (all by default; BENCH_SECTIONS=hop,switch,replicas picks some):
 * - hop: the hop through svc against the minimal Node proxy and Caddy, a guard (bench/hop-section.ts);
 * - switch: alternating requests for two models: the engine alone, llama.cpp's router, svc with and
 *   without memory room for both (bench/switch-section.ts);
 * - replicas: multi-turn conversations over 2 local replicas, cache-aware routing against
 *   least-loaded and one server (bench/replicas-section.ts);
 * - audio: time to the first audio byte and the first transcript delta, svc against the engines
 *   alone (bench/audio-section.ts).
 *
 * svc always runs from the build (`pnpm build`; rebuilt here when stale), as users run it. Prints
 * markdown and writes it to bench/results/<timestamp>.md and latest.md. Each section's file names
 * the variables that tune it.
 */
import { writeFile } from 'node:fs/promises'
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os'
import { join } from 'node:path'
import { audioSection } from './audio-section'
import { goalTable, type SectionResult } from './goals'
import { hopSection } from './hop-section'
import { replicasSection } from './replicas-section'
import { RESULTS_DIR, writeReport } from './report-file'
import { switchSection } from './switch-section'

/** Each section by name, in the order a full run takes them. */
const SECTIONS: Record<string, (log: (line: string) => void) => Promise<SectionResult>> = {
  hop: hopSection,
  switch: switchSection,
  replicas: replicasSection,
  audio: audioSection,
}

async function main(): Promise<void> {
  const chosen = (process.env.BENCH_SECTIONS ?? Object.keys(SECTIONS).join(','))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  const unknown = chosen.filter((s) => !(s in SECTIONS))
  if (unknown.length)
    throw new Error(
      `BENCH_SECTIONS: unknown ${unknown.join(', ')} (known: ${Object.keys(SECTIONS).join(', ')})`,
    )
  const log = (line: string) => process.stderr.write(`${line}\n`)
  const began = new Date()
  const loadBefore = loadavg()[0]!
  const results: SectionResult[] = []
  for (const name of chosen) {
    log(`— section ${name}`)
    results.push(await SECTIONS[name]!(log))
  }
  const loadAfter = loadavg()[0]!
  const minutes = (Date.now() - began.getTime()) / 60_000
  const report = [
    `# svc benchmark — ${began.toISOString()}`,
    '',
    `Machine: ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${availableParallelism()} CPUs, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, ${process.platform} ${process.arch}, node ${process.version}. Load average (1 min) ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after; the run took ${minutes.toFixed(1)} min. Sections: ${chosen.join(', ')}.`,
    '',
    '## Goals',
    '',
    ...goalTable(results.flatMap((r) => r.goals)),
    '',
    ...results.map((r) => r.markdown),
  ].join('\n')
  process.stdout.write(report)
  const path = await writeReport(report, began)
  await writeFile(join(RESULTS_DIR, 'latest.md'), report)
  log(`written to ${path}`)
}

void main().catch((error) => {
  console.error(error)
  process.exit(1)
})
