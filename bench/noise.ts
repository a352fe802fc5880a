/**
 * How quiet is this machine? The bench's goals compare two paths to within 5 %; whether one run can
 * tell that depends on how much the machine itself moves. Three probes, no svc in them:
 *
 * - **compute**: a loop of integer arithmetic in registers, 250-ms slices. It moves only with the
 *   core's speed (frequency, time stolen by the hypervisor).
 * - **memory**: a random pointer chase over 1 MiB (bigger than a core's own cache, so it lives in the
 *   shared last-level cache), 250-ms slices. It moves with what else uses that cache: on a shared VM,
 *   other tenants.
 * - **HTTP**: two processes of the bench's fake upstream (a minimal Node server) measured as the
 *   sections measure svc: wrk c=32, 1-s runs, the two alternating. The spread of one process's runs,
 *   the spread of the two processes' ratio from one round to the next (what a paired goal's rounds
 *   carry), and their ratio over all rounds (an A/A comparison: two processes of one program).
 *
 * Usage: `npx tsx bench/noise.ts` (NOISE_ROUNDS, default 30). ~2 min. Prints markdown and writes it to
 * bench/results/noise-<timestamp>.md.
 */
import { readFileSync } from 'node:fs'
import { runWrk } from './load'
import { startFakeUpstream } from './peers'
import { PAIRS } from './replicas'
import { writeReport } from './report-file'
import { fmt, median } from './stats'

const ROUNDS = Number(process.env.NOISE_ROUNDS ?? 30)
const SLICES = 40
const SLICE_MS = 250

/** Work done in each of `SLICES` slices of `SLICE_MS` by `step` (a fixed amount of work per call). */
function slices(step: () => void): number[] {
  const out: number[] = []
  for (let s = 0; s < SLICES; s++) {
    const end = performance.now() + SLICE_MS
    let n = 0
    while (performance.now() < end) {
      step()
      n++
    }
    out.push(n)
  }
  return out.slice(4) // the first second warms the JIT and the cache up
}

function computeProbe(): number[] {
  let x = 1
  return slices(() => {
    for (let i = 0; i < 1000; i++) x = (x * 1103515245 + 12345) | 0
  })
}

function memoryProbe(bytes = 1 << 20): number[] {
  const next = new Uint32Array(bytes / 4)
  for (let i = 0; i < next.length; i++) next[i] = Math.floor(Math.random() * next.length)
  let j = 0
  return slices(() => {
    for (let i = 0; i < 10_000; i++) j = next[j]!
  })
}

/** Standard deviation of the logs: ~ the relative spread (0.05 = 5 %). */
function logSd(values: readonly number[]): number {
  const logs = values.map(Math.log)
  const mean = logs.reduce((a, b) => a + b, 0) / logs.length
  return Math.sqrt(logs.reduce((a, b) => a + (b - mean) ** 2, 0) / (logs.length - 1))
}

const pct = (sd: number) => `${fmt(sd * 100, 1)} %`

/** All CPUs' time so far from /proc/stat: total and stolen by the hypervisor (jiffies). */
function cpuTimes(): { total: number; steal: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number)
  return { total: fields.reduce((a, b) => a + b, 0), steal: fields[7] ?? 0 }
}

async function httpProbe(log: (line: string) => void) {
  const peers = [await startFakeUpstream(), await startFakeUpstream()]
  try {
    for (const p of peers) await runWrk(p, 32, 5)
    const rps: [number[], number[]] = [[], []]
    for (let round = 1; round <= ROUNDS; round++) {
      for (const i of round % 2 ? [0, 1] : [1, 0]) {
        rps[i]!.push((await runWrk(peers[i]!, 32, 1)).rps)
        log(`round ${round}/${ROUNDS} process ${i + 1}: ${fmt(rps[i]!.at(-1))} req/s`)
      }
    }
    const ratios = rps[1].map((b, i) => b / rps[0][i]!)
    const pairSd = logSd(ratios)
    const geomean = Math.exp(ratios.map(Math.log).reduce((a, b) => a + b, 0) / ratios.length)
    return { rps, pairSd, geomean, se: pairSd / Math.sqrt(ratios.length) }
  } finally {
    for (const p of peers) await p.stop()
  }
}

const log = (line: string) => process.stderr.write(`${line}\n`)
const before = cpuTimes()
log('compute probe…')
const compute = computeProbe()
log('memory probe…')
const memory = memoryProbe()
const http = await httpProbe(log)
const after = cpuTimes()
const steal = (after.steal - before.steal) / (after.total - before.total)
// The bench's paired goals: the median of PAIRS per-round ratios (~1.25 × the mean's standard error).
const goalSe = (1.25 * http.pairSd) / Math.sqrt(PAIRS)
const spread = (xs: number[]) => {
  const m = median(xs)
  return `${pct(logSd(xs))} (${fmt(Math.min(...xs) / m, 2)}–${fmt(Math.max(...xs) / m, 2)} of the median)`
}
const report = [
  `# How quiet this machine is — ${new Date().toISOString()}`,
  '',
  '| probe | spread from one run to the next |',
  '|---|---|',
  `| compute loop, ${SLICE_MS}-ms slices | ${spread(compute)} |`,
  `| pointer chase over 1 MiB (the shared cache), ${SLICE_MS}-ms slices | ${spread(memory)} |`,
  `| fake upstream, wrk c=32, 1-s runs (process 1) | ${spread(http.rps[0])} |`,
  `| the two processes' ratio, round to round (what a paired goal's rounds carry) | ${pct(http.pairSd)} |`,
  `| process 2 / process 1 over ${ROUNDS} rounds (A/A: one program) | ${fmt(http.geomean, 3)}× ± ${fmt(http.se, 3)} |`,
  `| time stolen by the hypervisor, over the probes | ${pct(steal)} |`,
  '',
  `A paired goal of the bench (svc against a peer, the usage section's on against off) is the median of`,
  `${PAIRS} per-round ratios: with rounds this spread, its standard error is about ${pct(goalSe)}, before any`,
  'difference between two processes of one program (the A/A row), which no number of rounds removes.',
  goalSe < 0.015 && Math.abs(http.geomean - 1) < 0.03
    ? 'That is quiet enough for one run to decide a goal 5 % from its line.'
    : 'That is too much to trust one run of a goal within 5 % of its line: pool several runs, or take the figures on a quieter machine (dedicated cores, nothing else running).',
  '',
].join('\n')
process.stdout.write(report)
process.stderr.write(`written to ${await writeReport('noise-', report)}\n`)
