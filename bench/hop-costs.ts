/**
 * What each step of svc's hop costs, measured by taking it out: copies of the built API
 * (`apps/api/dist/serve.js`) with one step removed each, and one with all of them removed, run in
 * turn in front of the fake upstream (auth on, bearer token, a remote slot) next to the build as it
 * is and the minimal Node proxy. Reported: svc's own CPU time per relayed request (from /proc, wrk at
 * c=32), median of interleaved rounds, and what each step's removal saved.
 *
 * With `taskset` and two CPUs or more, the proxy under test runs alone on CPU 1 and everything else
 * (this script, wrk, the upstream) on CPU 0, so its CPU time per request is not inflated by the others.
 * The copies are for measuring only: a step taken out is a feature gone (no auth, no metrics…).
 *
 * Usage: `npx tsx bench/hop-costs.ts` (HOP_ROUNDS, default 3; HOP_SECONDS per run, default 4).
 * Prints markdown and writes it to bench/results/hop-costs-<timestamp>.md. A step whose code is not
 * found in the build (the source changed) stops the run, naming the step: update its pattern here.
 */
import { execFileSync } from 'node:child_process'
import { readFile, rm, writeFile } from 'node:fs/promises'
import { availableParallelism } from 'node:os'
import { dirname, join } from 'node:path'
import { BUILT_ENTRIES, ensureBuilt } from '@svc/testing'
import { runWrk } from './load'
import { type Peer, startFakeUpstream, startNodeProxy, startSvc } from './peers'
import { writeReport } from './report-file'
import { cpuMs } from './rss'
import { fmt, median } from './stats'

const ROUNDS = Number(process.env.HOP_ROUNDS ?? 3)
const SECONDS = Number(process.env.HOP_SECONDS ?? 4)

interface Step {
  name: string
  /** Each pattern must match the build once; its replacement takes the step out. */
  patches: [RegExp, string][]
  /** Measured on its own only, not taken out in "all of the above" (a part of another step, or not a step of the hop). */
  alone?: true
}

const STEPS: Step[] = [
  {
    // Negative "saved": what letting V8 pretenure per-request allocation sites again costs.
    name: 'young-only heap (V8 pretenuring back on)',
    patches: [[/setFlagsFromString\("--no-allocation-site-pretenuring"\);/, '']],
    alone: true,
  },
  {
    name: 'host rule and CORS',
    patches: [
      [/const refused = \w+\.refuse\?\.\(\w+\);/, 'const refused = void 0;'],
      [/if \(cors\?\.covers\((\w+)\)\) \{/, 'if (false) {'],
    ],
  },
  {
    name: 'request id (randomUUID)',
    patches: [[/(function requestIdOf[\s\S]{0,200}?): randomUUID\d*\(\)/, '$1: "bench"']],
  },
  {
    name: 'bearer check and quota gate',
    patches: [[/(return function guard\(\w+, \w+, \w+\) \{\n)/, '$1    return true;\n']],
  },
  {
    name: 'quota gate only',
    patches: [[/const \{ admit \} = (\w+);/, 'const admit = void 0;']],
    alone: true,
  },
  {
    name: 'body schema validation',
    patches: [[/(function validateWith\(\w+, (\w+)\) \{\n)/, '$1  return $2;\n']],
  },
  {
    name: 'token counts read from the answer',
    patches: [[/(function usageFromTail\(\w+\) \{\n)/, '$1  return void 0;\n']],
  },
  {
    name: 'usage ledger (counting in memory)',
    patches: [
      [/observe: \((\w+), (\w+)\) => recorder\.record\(gate\.subjectOf\(\2\), \1\),/, 'observe: () => {},'],
    ],
  },
  {
    name: 'metrics and dashboard figures',
    patches: [[/const metricsAndActivity = observeBoth\([^;]+\);/, 'const metricsAndActivity = () => {};']],
  },
]

async function main(): Promise<void> {
  await ensureBuilt('api')
  const pin = availableParallelism() >= 2 && hasTaskset()
  if (pin) execFileSync('taskset', ['-a', '-cp', '0', String(process.pid)], { stdio: 'ignore' })
  const source = await readFile(BUILT_ENTRIES.api, 'utf8')
  const variants: { name: string; entry?: string }[] = [{ name: 'svc as built' }]
  const all = STEPS.filter((s) => !s.alone)
  for (const step of [...STEPS, { name: 'all of the above', patches: all.flatMap((s) => s.patches) }]) {
    const entry = join(dirname(BUILT_ENTRIES.api), `serve.hop-cost-${variants.length}.js`)
    await writeFile(entry, patched(source, step))
    variants.push({ name: `without ${step.name}`, entry })
  }
  const upstream = await startFakeUpstream()
  const samples = new Map<string, number[]>([
    ['minimal Node proxy', []],
    ...variants.map((v) => [v.name, []] as [string, number[]]),
  ])
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      samples.get('minimal Node proxy')!.push(await measure(await startNodeProxy(upstream.url), pin))
      for (const v of variants) {
        const peer = await startSvc(upstream.url, { auth: true, ...(v.entry ? { entry: v.entry } : {}) })
        samples.get(v.name)!.push(await measure(peer, pin))
        process.stderr.write(
          `round ${round}/${ROUNDS} ${v.name}: ${fmt(samples.get(v.name)!.at(-1), 1)} µs/request\n`,
        )
      }
    }
  } finally {
    await upstream.stop()
    for (const v of variants) if (v.entry) await rm(v.entry, { force: true })
  }
  const base = median(samples.get('svc as built')!)
  const report = [
    `# What each step of the hop costs — ${new Date().toISOString()}`,
    '',
    `svc's CPU time per relayed request (auth on, bearer token, a remote slot in front of the fake upstream; wrk c=32, ${SECONDS} s per run, median of ${ROUNDS} interleaved rounds${pin ? '; the proxy alone on CPU 1' : ''}). A step's cost is what taking it out of the build saved.`,
    '',
    '| build | µs per request | saved | every round |',
    '|---|---|---|---|',
    ...[...samples].map(([name, values]) => {
      const m = median(values)
      const saved = name === 'svc as built' || name === 'minimal Node proxy' ? '' : `${fmt(base - m, 1)} µs`
      return `| ${name} | ${fmt(m, 1)} | ${saved} | ${values.map((x) => fmt(x, 1)).join(', ')} |`
    }),
    '',
  ].join('\n')
  process.stdout.write(report)
  const path = await writeReport('hop-costs-', report)
  process.stderr.write(`written to ${path}\n`)
}

function patched(source: string, step: Step): string {
  let text = source
  for (const [pattern, replacement] of step.patches) {
    if (!pattern.test(text))
      throw new Error(`step "${step.name}": ${pattern} is not in the build; update bench/hop-costs.ts`)
    text = text.replace(pattern, replacement)
  }
  return text
}

/** svc's (or the proxy's) CPU µs per request over one wrk run at c=32, after a short warm-up. */
async function measure(peer: Peer, pin: boolean): Promise<number> {
  try {
    if (pin) execFileSync('taskset', ['-a', '-cp', '1', String(peer.pid)], { stdio: 'ignore' })
    await runWrk(peer, 32, 2)
    const before = cpuMs(peer.pid!)
    const run = await runWrk(peer, 32, SECONDS)
    return ((cpuMs(peer.pid!) - before) * 1000) / (run.rps * SECONDS)
  } finally {
    await peer.stop()
  }
}

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

void main().catch((error) => {
  console.error(error)
  process.exit(1)
})
