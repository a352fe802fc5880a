/**
 * Where svc's time goes on the hot path: the built API (auth on, bearer token, a remote slot in front
 * of the fake upstream) under wrk at c=32, profiled by V8 (bench/cpu-profile-preload.mjs), its busy time summed by
 * where the code comes from — Node's own HTTP and stream machinery, the garbage collector, native
 * code (syscalls such as writev, libuv), and svc's bundle split by package (the `// path` markers
 * esbuild writes). Usage: `npx tsx bench/profile.ts` (PROFILE_SECONDS, default 15). Prints markdown
 * and writes it to bench/results/profile-<timestamp>.md.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { BUILT_ENTRIES, REPO_ROOT } from '@svc/testing'
import { runWrk } from './load'
import { startFakeUpstream, startSvc } from './peers'
import { writeReport } from './report-file'

const SECONDS = Number(process.env.PROFILE_SECONDS ?? 15)
const PRELOAD = pathToFileURL(join(REPO_ROOT, 'bench', 'cpu-profile-preload.mjs')).href

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[]
  samples: number[]
  timeDeltas: number[]
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-prof-'))
  const upstream = await startFakeUpstream(['--stream-chunks', '100'])
  try {
    const svc = await startSvc(upstream.url, {
      auth: true,
      env: { NODE_OPTIONS: `--import=${PRELOAD}`, BENCH_PROFILE_DIR: dir },
    })
    let result: { rps: number }
    try {
      result = await runWrk(svc, 32, SECONDS)
    } finally {
      await svc.stop()
    }
    const file = (await readdir(dir)).find((f) => f.endsWith('.cpuprofile'))
    if (!file) throw new Error(`no CPU profile was written to ${dir}`)
    const profile = JSON.parse(await readFile(join(dir, file), 'utf8')) as CpuProfile
    const report = summarise(profile, await bundleSections(), result.rps)
    process.stdout.write(report)
    const path = await writeReport('profile-', report)
    process.stderr.write(`written to ${path}\n`)
  } finally {
    await upstream.stop()
    await rm(dir, { recursive: true, force: true })
  }
}

/** The bundle's `// <source path>` markers: [first line (0-based), the package it belongs to]. */
async function bundleSections(): Promise<[number, string][]> {
  const lines = (await readFile(BUILT_ENTRIES.api, 'utf8')).split('\n')
  const out: [number, string][] = []
  lines.forEach((line, i) => {
    const m = /^\/\/ (\S+\.[cm]?[jt]sx?)$/.exec(line)
    if (m) out.push([i, packageOf(m[1]!)])
  })
  return out
}

function packageOf(path: string): string {
  const dep = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(path)
  if (dep) return `npm: ${dep[1]}`
  const ws = /(packages|apps)\/([^/]+)\//.exec(path)
  // Paths without packages/ or apps/ are the API's own files (relative to apps/api).
  return ws ? `svc: ${ws[1]}/${ws[2]}` : 'svc: apps/api'
}

function category(frame: CpuProfile['nodes'][number]['callFrame'], sections: [number, string][]): string {
  const { url, functionName, lineNumber } = frame
  if (functionName === '(garbage collector)') return 'V8 garbage collector'
  if (functionName === '(program)') return 'V8/native, unattributed (program)'
  if (url === '') return `native: ${functionName || '(anonymous)'}`
  if (url.startsWith('node:')) {
    const mod = url.slice(5)
    if (/^_http|^internal\/http/.test(mod)) return 'node: http'
    if (/^net$|^internal\/(net|stream_base_commons|tcp)/.test(mod)) return 'node: net'
    if (/stream/.test(mod)) return 'node: streams'
    if (/^internal\/(process|timers)|^timers|events$/.test(mod)) return 'node: events, timers, ticks'
    if (/^internal\/deps\/undici|undici/.test(mod)) return 'node: undici (fetch)'
    return `node: ${mod}`
  }
  if (url.endsWith('serve.js')) {
    let owner = 'svc: bundle'
    for (const [line, pkg] of sections) {
      if (line > lineNumber) break
      owner = pkg
    }
    return owner
  }
  return url
}

function summarise(profile: CpuProfile, sections: [number, string][], rps: number): string {
  const self = new Map<number, number>()
  profile.samples.forEach((id, i) => {
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0))
  })
  const byCategory = new Map<string, number>()
  const byFunction = new Map<string, number>()
  let busy = 0
  for (const node of profile.nodes) {
    const us = self.get(node.id) ?? 0
    if (us === 0 || node.callFrame.functionName === '(idle)') continue
    busy += us
    const cat = category(node.callFrame, sections)
    byCategory.set(cat, (byCategory.get(cat) ?? 0) + us)
    const fn = `${node.callFrame.functionName || '(anonymous)'} — ${cat}`
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us)
  }
  const pct = (us: number) => `${((us / busy) * 100).toFixed(1)} %`
  const top = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n)
  const svcShare = [...byCategory].filter(([c]) => c.startsWith('svc:')).reduce((a, [, us]) => a + us, 0)
  const npmShare = [...byCategory].filter(([c]) => c.startsWith('npm:')).reduce((a, [, us]) => a + us, 0)
  return [
    `# Where svc's time goes at c=32 — ${new Date().toISOString()}`,
    '',
    `The built API, auth on (bearer), a remote slot in front of the fake upstream; wrk c=32 for ${SECONDS} s (${rps.toFixed(0)} req/s while profiled, slower than unprofiled). Self time as a share of the process's busy (non-idle) time: svc's own code ${pct(svcShare)}, its npm dependencies ${pct(npmShare)}, the rest Node, V8 and the kernel.`,
    '',
    '| where | share of busy time |',
    '|---|---|',
    ...top(byCategory, 20).map(([c, us]) => `| ${c} | ${pct(us)} |`),
    '',
    '| function (top 20 by self time) | share |',
    '|---|---|',
    ...top(byFunction, 20).map(([f, us]) => `| ${f} | ${pct(us)} |`),
    '',
  ].join('\n')
}

void main().catch((error) => {
  console.error(error)
  process.exit(1)
})
