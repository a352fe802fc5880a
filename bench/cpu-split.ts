/**
 * Where a streamed request's CPU goes, in svc and in the minimal Node proxy: each relays short and
 * long chat streams at c=1, interleaved, and a line through the two (CPU = per request × requests +
 * per token × tokens) splits the time into what each relayed token costs and what each request
 * costs around its tokens (reading and checking the request, the upstream connection, the head of
 * the answer, closing both connections). The engine section's "CPU per token" goal divides the sum
 * by the tokens of 128-token streams; the split says which of the two parts makes it, and the
 * minimal proxy's split is what Node itself costs on this machine for the same work.
 *
 * CPU is read from /proc (user + system): on loopback most of a write's cost is the receiver's TCP
 * path, which the kernel runs in the writer's system call, so it counts here as it does for a user.
 */
import type { Goal } from './goals'
import { cpuMs } from './rss'
import { fmt } from './stats'
import { runStreams, type StreamTarget } from './stream-client'

export interface CpuSplit {
  perTokenUs: number
  perRequestUs: number
}

const SHORT = { maxTokens: 8, requests: Number(process.env.BENCH_SPLIT_SHORT ?? 200) }
const LONG = { maxTokens: 512, requests: Number(process.env.BENCH_SPLIT_LONG ?? 12) }
const ROUNDS = Number(process.env.BENCH_SPLIT_ROUNDS ?? 2)

type Who = 'node' | 'svc'
interface Totals {
  ms: number
  requests: number
  tokens: number
}

/** Measures both proxies (each `pid` is the process that relays for its target). */
export async function cpuSplit(
  targets: Record<Who, StreamTarget>,
  pids: Record<Who, number>,
  log: (line: string) => void,
): Promise<Record<Who, CpuSplit>> {
  const totals = {
    node: { short: empty(), long: empty() },
    svc: { short: empty(), long: empty() },
  }
  for (let round = 1; round <= ROUNDS; round++) {
    for (const who of round % 2 ? (['node', 'svc'] as const) : (['svc', 'node'] as const)) {
      for (const [length, load] of [
        ['short', SHORT],
        ['long', LONG],
      ] as const) {
        const before = cpuMs(pids[who])
        const run = await runStreams(targets[who], { concurrency: 1, ...load })
        const sum = totals[who][length]
        sum.ms += cpuMs(pids[who]) - before
        sum.requests += load.requests - run.errors
        sum.tokens += run.tokens
      }
      log(`engine CPU split round ${round}/${ROUNDS}: ${who} done`)
    }
  }
  return { node: split(totals.node), svc: split(totals.svc) }
}

function empty(): Totals {
  return { ms: 0, requests: 0, tokens: 0 }
}

/** The line through (tokens per request, CPU per request) of the short and the long streams. */
function split({ short, long }: { short: Totals; long: Totals }): CpuSplit {
  const perRequest = (t: Totals) => (t.ms * 1000) / t.requests
  const tokensPer = (t: Totals) => t.tokens / t.requests
  const perTokenUs = (perRequest(long) - perRequest(short)) / (tokensPer(long) - tokensPer(short))
  return { perTokenUs, perRequestUs: perRequest(short) - perTokenUs * tokensPer(short) }
}

/** The split as reference rows of the engine section's goal table (unjudged: the goal is per token). */
export function splitRows(split: Record<Who, CpuSplit>): Goal[] {
  const value = (s: CpuSplit) => `${fmt(s.perTokenUs)} µs, ${fmt(s.perRequestUs / 1000, 2)} ms`
  return [
    {
      measure: "svc's CPU split, /v1/chat/completions c=1: per relayed token, per request",
      value: value(split.svc),
      goal: '—',
      met: undefined,
    },
    {
      measure: "for reference, the minimal Node proxy's CPU split: per relayed token, per request",
      value: value(split.node),
      goal: '—',
      met: undefined,
    },
  ]
}
