/** The soak's report: a markdown summary on stdout and in `soak/results/<time>.md` (+ the JSON). */
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

/** svc's memory at one scrape during traffic (every 5 s). */
export interface MemorySample {
  /** Seconds since the warm-up began. */
  atS: number
  phase: 'warm-up' | 'main'
  rss: number
  heapUsed: number
  heapTotal: number
  external: number
}

export interface SoakReport {
  seconds: number
  concurrency: number
  kinds: { kind: string; ok: number; p50Ms: number; p99Ms: number }[]
  unexpected: Record<string, number>
  examples: Record<string, string>
  expected: Record<string, number>
  rss: { start: number; afterWarmup: number; end: number; growth: number }
  heapUsed: { afterWarmup: number; end: number }
  heapTotal: { afterWarmup: number; end: number }
  /** RSS when idle, before the full GC that each idle measurement starts with. */
  rssBeforeGc: { afterWarmup: number; end: number }
  /** RSS every second of each idle measurement after the full GC (the lowest counts). */
  idleWatch: { afterWarmup: number[]; end: number[] }
  fds: { start: number; afterWarmup: number; end: number }
  trend: MemorySample[]
  loopDelay: { p99MaxOfWindows: number; p99MedianOfWindows: number; max: number; windows: number }
  failures: string[]
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`
const ms = (value: number) => (Number.isFinite(value) ? `${value.toFixed(0)} ms` : '—')

/** At most `n` evenly spaced items of `list`, the last one always included. */
function thin<T>(list: T[], n: number): T[] {
  if (list.length <= n) return list
  const step = (list.length - 1) / (n - 1)
  return Array.from({ length: n }, (_, i) => list[Math.round(i * step)]!)
}

const idleRow = (rss: number[]) =>
  rss
    .filter((_, i) => i % 5 === 4)
    .map((b) => (b / 1024 / 1024).toFixed(0))
    .join(' → ')

export function renderReport(r: SoakReport): string {
  const lines = [
    `# svc soak: ${r.seconds.toFixed(0)} s at concurrency ${r.concurrency}`,
    '',
    '| kind | ok | p50 | p99 |',
    '|---|---|---|---|',
    ...r.kinds.map((k) => `| ${k.kind} | ${k.ok} | ${ms(k.p50Ms)} | ${ms(k.p99Ms)} |`),
    '',
    `Unexpected errors: ${Object.keys(r.unexpected).length === 0 ? 'none' : ''}`,
    ...Object.entries(r.unexpected).map(
      ([k, n]) => `- ${k} × ${n}${r.examples[k] ? ` (e.g. "${r.examples[k]}")` : ''}`,
    ),
    `Expected refusals: ${
      Object.entries(r.expected)
        .map(([k, n]) => `${k} × ${n}`)
        .join(', ') || 'none'
    }`,
    '',
    '| svc process | at start | after warm-up (idle) | at the end (idle) |',
    '|---|---|---|---|',
    `| RSS | ${mb(r.rss.start)} | ${mb(r.rss.afterWarmup)} | ${mb(r.rss.end)} (${(r.rss.growth * 100).toFixed(1)} %) |`,
    `| V8 heap used | — | ${mb(r.heapUsed.afterWarmup)} | ${mb(r.heapUsed.end)} |`,
    `| V8 heap total | — | ${mb(r.heapTotal.afterWarmup)} | ${mb(r.heapTotal.end)} |`,
    `| RSS idle, before the full GC | — | ${mb(r.rssBeforeGc.afterWarmup)} | ${mb(r.rssBeforeGc.end)} |`,
    `| RSS after it (every 5 s) | — | ${idleRow(r.idleWatch.afterWarmup)} | ${idleRow(r.idleWatch.end)} |`,
    `| open descriptors | ${r.fds.start} | ${r.fds.afterWarmup} | ${r.fds.end} |`,
    '',
    'Memory under traffic (every 5 s in the JSON; here at most 20 rows):',
    '',
    '| s | phase | RSS | V8 heap used | V8 heap total | external |',
    '|---|---|---|---|---|---|',
    ...thin(r.trend, 20).map(
      (t) =>
        `| ${t.atS} | ${t.phase} | ${mb(t.rss)} | ${mb(t.heapUsed)} | ${mb(t.heapTotal)} | ${mb(t.external)} |`,
    ),
    '',
    `Event-loop delay in svc (${r.loopDelay.windows} windows of 5 s): p99 median ${ms(r.loopDelay.p99MedianOfWindows * 1000)}, ` +
      `p99 worst ${ms(r.loopDelay.p99MaxOfWindows * 1000)}, max ${ms(r.loopDelay.max * 1000)}`,
    '',
    r.failures.length === 0 ? 'Result: PASS' : `Result: FAIL (${r.failures.join('; ')})`,
  ]
  return `${lines.join('\n')}\n`
}

/** Prints the report and writes it (markdown and JSON) under `dir`; returns the markdown file. */
export async function writeReport(dir: string, report: SoakReport): Promise<string> {
  const text = renderReport(report)
  process.stdout.write(`\n${text}`)
  await mkdir(dir, { recursive: true })
  const stamp = new Date().toISOString().replace(/[:.]/g, '-')
  const file = join(dir, `soak-${stamp}.md`)
  await writeFile(file, text)
  await writeFile(join(dir, `soak-${stamp}.json`), `${JSON.stringify(report, null, 2)}\n`)
  return file
}
