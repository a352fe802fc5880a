/**
 * `hop`: the cost of the hop through svc, kept as a guard. In front of one static fake upstream (a
 * small JSON chat completion): svc (the build, auth on, a bearer token), the minimal Node proxy
 * (bench/node-proxy.mjs: the least a proxy written in Node can do) and Caddy's `reverse_proxy`.
 *
 * Method: each peer is warmed up (svc for BENCH_HOP_WARMUP s at c=32, V8 reaches svc's steady state
 * only after ~20 s of load; the others 5 s), then BENCH_HOP_ROUNDS rounds: every peer at c=32 (wrk
 * BENCH_HOP_SECONDS s, each run right after 1 s of unmeasured load on the same peer, which brings a
 * process back from idling), then direct, the Node proxy and svc at c=1. The peers run forward in odd
 * rounds and backward in even ones (stats.ts `roundOrder`); each goal is the median of the rounds'
 * ratios (or differences) of peers measured back to back (stats.ts `paired`).
 */
import type { Goal, SectionResult } from './goals'
import { runWrk, type WrkResult } from './load'
import { type Peer, startCaddy, startDirect, startNodeProxy, startSvc } from './peers'
import { fmt, median, type Paired, paired, pairedText, roundOrder } from './stats'

const ROUNDS = Number(process.env.BENCH_HOP_ROUNDS ?? 10)
const SECONDS = Number(process.env.BENCH_HOP_SECONDS ?? 2)
const WARMUP = Number(process.env.BENCH_HOP_WARMUP ?? 20)

interface Samples {
  c32: WrkResult[]
  c1: WrkResult[]
}

export async function hopSection(log: (line: string) => void): Promise<SectionResult> {
  const direct = await startDirect()
  const peers: Peer[] = []
  try {
    const caddy = await startCaddy(direct.url)
    if (caddy) peers.push(caddy)
    const node = await startNodeProxy(direct.url)
    const svc = await startSvc(direct.url)
    peers.push(node, svc)
    for (const peer of [direct, ...peers]) {
      log(`  warming up ${peer.name}…`)
      await runWrk(peer, 32, peer === svc ? WARMUP : 5)
    }
    const samples = new Map<Peer, Samples>([direct, ...peers].map((p) => [p, { c32: [], c1: [] }]))
    for (let round = 1; round <= ROUNDS; round++) {
      for (const peer of roundOrder(peers, round)) {
        await runWrk(peer, 32, 1)
        samples.get(peer)!.c32.push(await runWrk(peer, 32, SECONDS))
      }
      for (const peer of roundOrder([direct, node, svc], round))
        samples.get(peer)!.c1.push(await runWrk(peer, 1, SECONDS))
      log(
        `  round ${round}/${ROUNDS}: c=32 ${peers.map((p) => `${p.name} ${fmt(samples.get(p)!.c32.at(-1)?.rps)}`).join(', ')} req/s`,
      )
    }
    return render(samples, { direct, node, svc, caddy })
  } finally {
    for (const p of [...peers.reverse(), direct]) await p.stop().catch(() => undefined)
  }
}

function render(
  samples: Map<Peer, Samples>,
  p: { direct: Peer; node: Peer; svc: Peer; caddy: Peer | undefined },
): SectionResult {
  const rps = (peer: Peer | undefined) => (peer ? samples.get(peer)!.c32.map((r) => r.rps) : [])
  const p50 = (peer: Peer) => samples.get(peer)!.c1.map((r) => r.p50Ms)
  const vsNode = paired(rps(p.svc), rps(p.node))
  const vsCaddy = paired(rps(p.svc), rps(p.caddy))
  const svcAdds = paired(p50(p.svc), p50(p.direct), true)
  const nodeAdds = paired(p50(p.node), p50(p.direct), true)
  const ms = (x: Paired) => (Number.isFinite(x.value) ? `${fmt(x.value, 3)} ms` : 'n/a')
  const spread = (x: Paired) =>
    x.rounds.length ? ` (rounds ${fmt(Math.min(...x.rounds), 3)}–${fmt(Math.max(...x.rounds), 3)})` : ''
  const goals: Goal[] = [
    {
      measure: 'hop: svc (auth on) / minimal Node proxy, req/s at c=32',
      value: pairedText(vsNode),
      goal: '≥ 0.9×',
      met: Number.isFinite(vsNode.value) ? vsNode.value >= 0.9 : undefined,
    },
  ]
  const errors = [...samples.values()].reduce(
    (n, s) => n + [...s.c32, ...s.c1].reduce((m, r) => m + r.errors, 0),
    0,
  )
  const row = (peer: Peer | undefined) => {
    if (!peer) return []
    const s = samples.get(peer)!
    return [
      `| ${peer.name} | ${s.c32.length ? fmt(median(s.c32.map((r) => r.rps))) : '—'} | ${s.c32.map((r) => fmt(r.rps)).join(', ')} | ${s.c1.length ? fmt(median(s.c1.map((r) => r.p50Ms * 1000))) : ''} |`,
    ]
  }
  const markdown = [
    '## hop: svc against the minimal Node proxy and Caddy',
    '',
    `A static fake upstream; each peer warmed up, then ${ROUNDS} rounds of wrk ${SECONDS} s at c=32 (Caddy, the Node proxy, svc; reversed in even rounds) and at c=1. svc is the build with auth on and a bearer token.`,
    '',
    '| path | req/s c=32 (median) | req/s c=32 per round | p50 µs c=1 (median) |',
    '|---|---|---|---|',
    ...row(p.direct),
    ...row(p.caddy),
    ...row(p.node),
    ...row(p.svc),
    '',
    `- svc / minimal Node proxy at c=32: ${pairedText(vsNode)}; svc / Caddy: ${pairedText(vsCaddy)}.`,
    `- Added to the p50 at c=1 over direct: svc ${ms(svcAdds)}${spread(svcAdds)}, the minimal Node proxy ${ms(nodeAdds)}${spread(nodeAdds)}.`,
    `- Errors (non-2xx or socket) over all runs: ${errors}.`,
    '',
  ].join('\n')
  return { markdown, goals }
}
