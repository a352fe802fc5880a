/**
 * `pnpm bench`: the cost of the hop through svc, as ratios measured in one run on this machine.
 *
 * Peers, each in front of the same fake upstream (static JSON chat completion; SSE with 100 events):
 * direct (the limit), svc (a remote slot), svc with auth on (bearer token), Caddy `reverse_proxy`.
 * Measures req/s and p50/p99 latency at concurrency 1 and 32 (wrk), SSE events/s and time to first
 * byte. Prints a markdown table and writes it to bench/results/.
 *
 * Method: each peer is warmed up first (BENCH_WARMUP seconds at c=32: V8 optimises svc's code only
 * after a few thousand requests), then the peers are measured in interleaved rounds (BENCH_ROUNDS)
 * and the median round is reported, so slow drift of the machine hits every column alike.
 *
 * Env: BENCH_SECONDS (per wrk run, default 3), BENCH_ROUNDS (default 5), BENCH_WARMUP (default 5),
 * BENCH_SSE_REQUESTS (default 200).
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { REPO_ROOT } from '@svc/testing'
import { authPeer } from './auth-peer'
import { runSse, runWrk, type SseResult, type WrkResult } from './load'
import { type Peer, startCaddy, startFakeUpstream, startSvc } from './peers'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const WARMUP = Number(process.env.BENCH_WARMUP ?? 5)
const SSE_REQUESTS = Number(process.env.BENCH_SSE_REQUESTS ?? 200)

interface Row {
  peer: string
  c1: WrkResult
  c32: WrkResult
  sse: SseResult
}

async function main(): Promise<void> {
  const upstream = await startFakeUpstream(['--stream-chunks', '100'])
  const peers: Peer[] = [upstream]
  try {
    peers.push(await startSvc(upstream.url))
    peers.push(await authPeer(upstream.url))
    const caddy = await startCaddy(upstream.url)
    if (caddy) peers.push(caddy)
    else console.warn('Caddy is not installed: no peer column (apt-get install caddy)')

    for (const peer of peers) {
      process.stderr.write(`warming up ${peer.name}…\n`)
      await runWrk(peer, 32, WARMUP)
      await runSse(peer, 20)
    }
    const samples = new Map<string, { c1: WrkResult[]; c32: WrkResult[]; sse: SseResult[] }>(
      peers.map((p) => [p.name, { c1: [], c32: [], sse: [] }]),
    )
    for (let round = 1; round <= ROUNDS; round++) {
      for (const peer of peers) {
        process.stderr.write(`round ${round}/${ROUNDS}: ${peer.name}\n`)
        const s = samples.get(peer.name)!
        s.c1.push(await runWrk(peer, 1, SECONDS))
        s.c32.push(await runWrk(peer, 32, SECONDS))
        s.sse.push(await runSse(peer, Math.ceil(SSE_REQUESTS / ROUNDS)))
      }
    }
    const rows: Row[] = peers.map((p) => {
      const s = samples.get(p.name)!
      return {
        peer: p.name,
        c1: median(s.c1, (r) => r.rps),
        c32: median(s.c32, (r) => r.rps),
        sse: median(s.sse, (r) => r.eventsPerSecond),
      }
    })
    const spread = peers.map((p) => {
      const s = samples.get(p.name)!
      return `| ${p.name} | ${s.c32.map((r) => r.rps.toFixed(0)).join(', ')} | ${s.c1.map((r) => (r.p50Ms * 1000).toFixed(0)).join(', ')} |`
    })
    const report = `${render(rows)}\nEvery round, to judge the spread:\n\n| path | req/s c=32 per round | p50 µs c=1 per round |\n|---|---|---|\n${spread.join('\n')}\n`
    process.stdout.write(report)
    const dir = join(REPO_ROOT, 'bench', 'results')
    await mkdir(dir, { recursive: true })
    const stamp = new Date().toISOString().replace(/[:.]/g, '-')
    await writeFile(join(dir, `${stamp}.md`), report)
    await writeFile(join(dir, 'latest.md'), report)
    process.stderr.write(`written to bench/results/${stamp}.md\n`)
  } finally {
    for (const p of peers.reverse()) await p.stop().catch(() => undefined)
  }
}

/** The sample with the median `key` (whole samples, so p50/p99 stay from one real run). */
function median<T>(samples: T[], key: (t: T) => number): T {
  const sorted = [...samples].sort((a, b) => key(a) - key(b))
  return sorted[Math.floor(sorted.length / 2)]!
}

function render(rows: Row[]): string {
  const by = (name: string) => rows.find((r) => r.peer === name)
  const direct = by('direct')!
  const svc = by('svc')
  const caddy = by('Caddy reverse_proxy')
  const auth = rows.find((r) => r.peer.startsWith('svc (auth'))
  const f = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a')
  const ratio = (a: number | undefined, b: number | undefined) => (a && b ? `${(a / b).toFixed(2)}×` : 'n/a')
  const lines = [
    `# svc proxy benchmark — ${new Date().toISOString()}`,
    '',
    `Machine: ${process.platform} ${process.arch}, ${availableParallelism()} CPUs, node ${process.version}. Each peer warmed up ${WARMUP} s at c=32; median of ${ROUNDS} interleaved rounds of wrk ${SECONDS} s per run; SSE: ${SSE_REQUESTS} sequential streams of 100 events in all.`,
    '',
    '| path | req/s c=1 | p50 ms c=1 | p99 ms c=1 | req/s c=32 | p50 ms c=32 | p99 ms c=32 | SSE events/s | SSE TTFB ms | errors |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.peer} | ${f(r.c1.rps)} | ${f(r.c1.p50Ms, 3)} | ${f(r.c1.p99Ms, 3)} | ${f(r.c32.rps)} | ${f(r.c32.p50Ms, 3)} | ${f(r.c32.p99Ms, 3)} | ${f(r.sse.eventsPerSecond)} | ${f(r.sse.ttfbMs, 3)} | ${r.c1.errors + r.c32.errors} |`,
    ),
    '',
    '| ratio | value | goal |',
    '|---|---|---|',
    `| svc / direct, req/s c=32 | ${ratio(svc?.c32.rps, direct.c32.rps)} | — |`,
    `| svc / Caddy, req/s c=32 | ${ratio(svc?.c32.rps, caddy?.c32.rps)} | ≥ 0.75× |`,
    `| svc added p50 at c=1 | ${svc ? `${f(svc.c1.p50Ms - direct.c1.p50Ms, 3)} ms` : 'n/a'} | ≤ 0.2 ms |`,
    `| svc / direct, SSE events/s | ${ratio(svc?.sse.eventsPerSecond, direct.sse.eventsPerSecond)} | ≥ 0.9× |`,
    `| auth on (bearer) / auth off, req/s c=32 | ${ratio(auth?.c32.rps, svc?.c32.rps)} | ≥ 0.9× |`,
    '',
  ]
  return lines.join('\n')
}

void main().catch((error) => {
  console.error(error)
  process.exit(1)
})
