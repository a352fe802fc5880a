/**
 * The usage section of `pnpm bench`: what the usage ledger and a quota check cost on the hop.
 *
 * Peers in front of the same fake upstream, all with auth on and a bearer token: svc with
 * `SVC_USAGE_ENABLED=0` (no ledger, no quotas) and svc as shipped with a token that has limits (high
 * enough never to refuse, so every request runs the whole check, sets the rate-limit headers and is
 * counted; the ledger writes its batch every 2 s meanwhile), each through BENCH_PROCESSES processes
 * in turn (replicas.ts); and, for reference, the same "on" processes through a second token without
 * limits, which splits the cost: the quota check alone (limited / unlimited token, one process, so
 * no process-to-process difference) and the ledger alone (unlimited token / off); and a second group
 * of "off" processes, whose ratio to the first is the method's own spread (an A/A comparison: a goal
 * reading within it of the line says little: the goal is reported with that spread, not engineered
 * around). wrk at c=32, warmed up, then many short rounds (forward in odd rounds, reversed in even
 * ones), each after a settling second (replicas.ts), as the proxy section's pairs phase measures; the
 * goal (on ≥ 0.95× off) is the median of the per-round ratios. Each run also reads the CPU time svc's event loop
 * spent per request (/proc/<pid>/schedstat): svc's own cost, apart from what wrk and the upstream on
 * the same two cores make of its answers.
 */
import { type Goal, goalTable, type SectionResult } from './goals'
import { runWrk, type WrkResult } from './load'
import { type Peer, startFakeUpstream, startSvc } from './peers'
import {
  BURN_IN,
  measureInRounds,
  PAIRS,
  PROCESSES,
  REPLICA_WARMUP,
  SETTLE_SECONDS,
  settle,
  withReplicas,
} from './replicas'
import { mainThreadCpuNs } from './rss'
import { fmt, median, medianBy, paired, pairedText, ratio } from './stats'

// Many short rounds rather than a few long ones, as the proxy section's pairs phase (see there).
const SECONDS = Number(process.env.BENCH_PAIR_SECONDS ?? 1)
// High enough never to refuse in a run, and a small integer to V8 like the limits people set (a
// limit past 2^30 is a heap number, and printing one in each answer's headers costs a double-to-text).
const HUGE = 1_000_000_000
/** The two configurations the section compares. */
const USAGE_OFF = { auth: true, env: { SVC_USAGE_ENABLED: '0' } }
const USAGE_ON = {
  auth: true,
  limits: { requests_per_minute: HUGE, tokens_per_minute: HUGE, tokens_per_day: HUGE },
}

export async function usageSection(log: (line: string) => void): Promise<SectionResult> {
  const upstream = await startFakeUpstream()
  const peers: Peer[] = [upstream]
  try {
    const kinds: [string, Parameters<typeof startSvc>[1]][] = [
      ['svc, usage off', USAGE_OFF],
      ['svc, ledger and quota on', USAGE_ON],
    ]
    const start = (name: string, options: Parameters<typeof startSvc>[1]) => async () => {
      const peer = { ...(await startSvc(upstream.url, options)), name }
      peers.push(peer)
      return peer
    }
    // Every process warmed to its steady state (replicas.ts REPLICA_WARMUP), then BURN_IN rounds.
    const warm = (peer: Peer) => runWrk(peer, 32, REPLICA_WARMUP)
    // Each group through PROCESSES processes of its own in turn (replicas.ts).
    const group = async (name: string, options: Parameters<typeof startSvc>[1]) => {
      log(`starting and warming up ${name}…`)
      const first = await start(name, options)()
      await warm(first)
      return withReplicas(first, start(name, options), warm)
    }
    const groups: Peer[][] = []
    for (const [name, options] of kinds) groups.push(await group(name, options))
    // The same "on" processes through a second token without limits, in the same rounds: the quota
    // check's own cost, with no process-to-process difference in it.
    groups.push(await Promise.all(groups[1]!.map(unlimited)))
    // A second group of "off" processes, measured like the others: the goal's statistic between two
    // groups of one configuration (an A/A comparison) is the method's own spread in this run.
    groups.push(await group('svc, usage off (a second group of processes)', USAGE_OFF))
    const [off, on, ledger, offAgain] = groups.map((g) => g[0]!) as [Peer, Peer, Peer, Peer]
    const check = await fetch(`${on.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...on.headers },
      body: JSON.stringify({ model: on.model, messages: [{ role: 'user', content: 'hi' }] }),
    })
    await check.arrayBuffer()
    if (check.headers.get('x-ratelimit-limit-requests') !== String(HUGE))
      throw new Error('the limited token got no rate-limit headers: the quota check is not running')

    log(`${BURN_IN} rounds not measured first…`)
    const samples = await measureInRounds(
      groups,
      PAIRS,
      withLoopCpu,
      (round, name, r) =>
        log(
          `round ${round}/${PAIRS} ${name}: c=32 ${fmt(r.rps)} req/s, ${fmt(r.loopUs, 1)} µs event-loop CPU/request`,
        ),
      settle,
      BURN_IN,
    )
    const counted = await fetch(`${on.url}/api/usage?group_by=token`, {
      headers: { 'x-forwarded-email': 'bench@localhost' },
    })
    const totals = ((await counted.json()) as { totals?: { requests?: number } }).totals
    const medianOf = (peer: Peer): WrkResult => medianBy(samples.get(peer.name)!, (r) => r.rps)
    const rps = (peer: Peer) => samples.get(peer.name)!.map((r) => r.rps)
    const loopUs = (peer: Peer) => samples.get(peer.name)!.map((r) => r.loopUs)
    const onOff = paired(rps(on), rps(off))
    const goals: Goal[] = [
      {
        measure: 'ledger and quota check on / off, req/s c=32 (auth on)',
        value: pairedText(onOff),
        goal: '≥ 0.95×',
        met: onOff.value >= 0.95,
      },
      {
        measure:
          'for reference: the same as the ratio of the two medians (how reports before 2026-11-27 read it)',
        value: ratio(medianOf(on).rps, medianOf(off).rps),
        goal: '—',
        met: undefined,
      },
      {
        measure: 'for reference: the quota check alone, same processes, limited token / token without limits',
        value: pairedText(paired(rps(on), rps(ledger))),
        goal: '—',
        met: undefined,
      },
      {
        measure: 'for reference: the ledger alone, token without limits (in the "on" processes) / off',
        value: pairedText(paired(rps(ledger), rps(off))),
        goal: '—',
        met: undefined,
      },
      {
        measure:
          'for reference: svc\u2019s own cost, event-loop CPU per request, on / off (from /proc; the rest of the machine left out)',
        value: pairedText(paired(loopUs(on), loopUs(off))),
        goal: '—',
        met: undefined,
      },
      {
        measure:
          'for reference: the same for the quota check alone, limited token / token without limits, same processes',
        value: pairedText(paired(loopUs(on), loopUs(ledger))),
        goal: '—',
        met: undefined,
      },
      {
        measure:
          'for reference: usage off / usage off, two groups of processes of the same configuration (the method\u2019s own spread)',
        value: pairedText(paired(rps(offAgain), rps(off))),
        goal: '—',
        met: undefined,
      },
    ]
    const lines = [
      '## Usage ledger and quotas',
      '',
      `Every peer with auth on and a bearer token, each process warmed up ${REPLICA_WARMUP} s at c=32, then ${BURN_IN} rounds as below not measured; then ${PAIRS} rounds of wrk ${SECONDS} s each (each after ${SETTLE_SECONDS} s of unmeasured load, which brings a process back from idling), the peers in the order below in odd rounds and the reverse in even ones, each through ${PROCESSES} processes of its own in turn; the third row is the same processes as the "on" row through a token without limits, and the fourth a second group of "off" processes (two groups of one configuration: how far apart the method reads them is its own spread). The table gives each peer's median round; the goal is the median over rounds of that round's ratio. The ledger counted ${totals?.requests ?? 'n/a'} requests of the first "on" process.`,
      '',
      '| path | req/s c=32 | p50 ms | p99 ms | event-loop CPU µs/request | per round | errors |',
      '|---|---|---|---|---|---|---|',
      ...[off, on, ledger, offAgain].map((peer) => {
        const w = medianOf(peer)
        const rounds = rps(peer)
          .map((x) => fmt(x))
          .join(', ')
        const cpu = median(loopUs(peer))
        return `| ${peer.name} | ${fmt(w.rps)} | ${fmt(w.p50Ms, 3)} | ${fmt(w.p99Ms, 3)} | ${fmt(cpu, 1)} | ${rounds} | ${w.errors} |`
      }),
      '',
      ...goalTable(goals),
      '',
    ]
    return { markdown: lines.join('\n'), goals }
  } finally {
    for (const p of peers.reverse()) await p.stop().catch(() => undefined)
  }
}

/**
 * One wrk run with the CPU time svc's main thread (its event loop, which bounds its req/s) spent per
 * request in it: svc's own cost, without what wrk and the upstream on the same cores make of the
 * answer. A reading of the cost the goal is about that the machine's other tenants move less.
 */
async function withLoopCpu(peer: Peer): Promise<WrkResult & { loopUs: number }> {
  const before = mainThreadCpuNs(peer.pid!)
  const result = await runWrk(peer, 32, SECONDS)
  const ns = mainThreadCpuNs(peer.pid!) - before
  return { ...result, loopUs: ns / 1000 / (result.rps * SECONDS) }
}

/** `peer` through a new token (scope v1-only) without limits, made by an admin through its API. */
async function unlimited(peer: Peer): Promise<Peer> {
  const made = await fetch(`${peer.url}/api/auth/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-email': 'bench@localhost' },
    body: JSON.stringify({ label: 'bench, no limits', scope: 'v1-only' }),
  })
  if (made.status !== 201) throw new Error(`no second token: ${made.status} ${await made.text()}`)
  const { token } = (await made.json()) as { token: string }
  return {
    ...peer,
    name: 'svc, ledger on (token without limits, same processes)',
    headers: { authorization: `Bearer ${token}` },
    stop: async () => undefined,
  }
}
