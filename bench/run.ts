/**
 * `pnpm bench`: what svc costs where users feel it, as ratios measured in one run on this machine.
 *
 * Sections (all by default; BENCH_SECTIONS=proxy,engine,memory,start,swap,usage picks some):
 * - proxy: the hop through svc against a static fake upstream, next to direct and Caddy, with the
 *   cost of two `/api/events` subscribers and a multi-process experiment (bench/proxy-section.ts);
 * - engine: real llama-server with the tiny GGUF, direct vs through svc; loads and swaps
 *   (bench/engine-section.ts);
 * - memory: RSS per open stream with 500 slow streams held through svc (bench/stream-memory.ts);
 * - start: `pnpm start` to listening and the idle RSS of what it leaves running (bench/start-section.ts);
 * - swap: a mixed A/B load on one slot that loads on request, with and without the swap-aware
 *   ordering (bench/swap-section.ts);
 * - usage: the hop with the usage ledger and a quota check on vs off (bench/usage-section.ts).
 *
 * svc always runs from the build (`pnpm build`; rebuilt here when stale), as users run it. Prints
 * markdown and writes it to bench/results/<timestamp>.md and latest.md. Env of each section: see its
 * file; BENCH_ROUNDS (default 5) applies to the proxy and engine sections.
 */
import { writeFile } from 'node:fs/promises'
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os'
import { join } from 'node:path'
import { engineSection } from './engine-section'
import { goalTable, type SectionResult } from './goals'
import { proxySection } from './proxy-section'
import { RESULTS_DIR, writeReport } from './report-file'
import { startSection } from './start-section'
import { streamMemorySection } from './stream-memory'
import { swapSection } from './swap-section'
import { usageSection } from './usage-section'

const SECTIONS: Record<string, (log: (line: string) => void) => Promise<SectionResult>> = {
  proxy: proxySection,
  engine: engineSection,
  memory: streamMemorySection,
  start: startSection,
  swap: swapSection,
  usage: usageSection,
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
