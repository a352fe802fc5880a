/**
 * The real-engine section of `pnpm bench`: llama-server with the tiny GGUF (`--parallel 4`) reached
 * directly and through svc (the build, auth on, bearer token), streaming chat at c=1 and c=4 —
 * tokens/s, time to first token and the gaps between tokens — and how long a slot load and a swap
 * take next to the same engine started by hand.
 *
 * The tiny model makes ~3,000 tokens/s on one thread, far more than a real model on this machine, so
 * svc's per-event cost shows as clearly as it ever can. Env: BENCH_ENGINE_REQUESTS (streams per
 * path, concurrency and round; default 24), BENCH_ENGINE_TOKENS (max_tokens, default 128),
 * BENCH_ROUNDS, BENCH_LOAD_ROUNDS (default 5).
 */
import { commandLineOf, startByHand } from './engine-alone'
import { startEngineSvc } from './engine-svc'
import { type Goal, goalTable, type SectionResult } from './goals'
import { cpuMs } from './rss'
import { fmt, median, quantile, ratio } from './stats'
import { runStreams, type StreamRun, type StreamTarget } from './stream-client'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const REQUESTS = Number(process.env.BENCH_ENGINE_REQUESTS ?? 24)
const TOKENS = Number(process.env.BENCH_ENGINE_TOKENS ?? 128)
const LOAD_ROUNDS = Number(process.env.BENCH_LOAD_ROUNDS ?? 5)
const CONCURRENCY = [1, 4] as const

type Path = 'direct' | 'svc'
type Samples = Record<Path, Record<(typeof CONCURRENCY)[number], StreamRun[]>>
/** svc's CPU time while it relayed, and the tokens it relayed, per concurrency. */
type SvcCpu = Record<(typeof CONCURRENCY)[number], { ms: number; tokens: number }>

export async function engineSection(log: (line: string) => void): Promise<SectionResult> {
  const svc = await startEngineSvc()
  try {
    await svc.load(svc.models.a)
    const upstream = await svc.upstream()
    const argv = await commandLineOf(upstream.pid)
    const targets: Record<Path, StreamTarget> = {
      direct: { url: upstream.base, model: 'primary', headers: upstream.headers },
      svc: { url: svc.api.url, model: 'primary', headers: svc.headers },
    }
    log('engine: warming up')
    for (const path of ['direct', 'svc'] as const) {
      await runStreams(targets[path], { concurrency: 4, requests: 16, maxTokens: TOKENS })
    }
    const samples: Samples = { direct: { 1: [], 4: [] }, svc: { 1: [], 4: [] } }
    const cpu: SvcCpu = { 1: { ms: 0, tokens: 0 }, 4: { ms: 0, tokens: 0 } }
    const svcPid = svc.api.child.pid!
    for (let round = 1; round <= ROUNDS; round++) {
      for (const c of CONCURRENCY) {
        // Alternate which path goes first, so neither always runs on a warmer or colder machine.
        const order: Path[] = round % 2 ? ['direct', 'svc'] : ['svc', 'direct']
        for (const path of order) {
          const cpuBefore = cpuMs(svcPid)
          const run = await runStreams(targets[path], {
            concurrency: c,
            requests: REQUESTS,
            maxTokens: TOKENS,
          })
          samples[path][c].push(run)
          if (path === 'svc') {
            cpu[c].ms += cpuMs(svcPid) - cpuBefore
            cpu[c].tokens += run.tokens
          }
          log(
            `engine round ${round}/${ROUNDS} c=${c} ${path}: ${fmt(run.tokensPerSecond)} tokens/s, TTFT p50 ${fmt(quantile(run.ttftMs, 0.5), 2)} ms${run.errors ? `, ${run.errors} errors (${run.errorReasons.join('; ')})` : ''}`,
          )
        }
      }
    }
    const loads = await measureLoads(svc, argv, log)
    return report(samples, loads, cpu)
  } finally {
    await svc.stop()
  }
}

interface Loads {
  svcLoad: number[]
  handLoad: number[]
  svcSwap: number[]
  handSwap: number[]
}

/** Interleaved: a load through svc, the same engine by hand; then swaps both ways. */
async function measureLoads(
  svc: Awaited<ReturnType<typeof startEngineSvc>>,
  argv: string[],
  log: (line: string) => void,
): Promise<Loads> {
  const loads: Loads = { svcLoad: [], handLoad: [], svcSwap: [], handSwap: [] }
  for (let round = 1; round <= LOAD_ROUNDS; round++) {
    await svc.unload()
    const hand = await startByHand(argv, svc.models.a)
    await hand.stop()
    loads.handLoad.push(hand.readyMs)
    loads.svcLoad.push(await svc.load(svc.models.a))
    // A swap: the slot holds a, then b is asked for (svc unloads a, then loads b).
    loads.svcSwap.push(await svc.load(svc.models.b))
    await svc.load(svc.models.a)
    // By hand: a runs; stop it, start b, until b answers /health.
    await svc.unload()
    const first = await startByHand(argv, svc.models.a)
    const began = performance.now()
    await first.stop()
    const second = await startByHand(argv, svc.models.b)
    loads.handSwap.push(performance.now() - began)
    await second.stop()
    await svc.load(svc.models.a)
    log(
      `load round ${round}/${LOAD_ROUNDS}: load svc ${fmt(loads.svcLoad.at(-1))} ms, by hand ${fmt(hand.readyMs)} ms; swap svc ${fmt(loads.svcSwap.at(-1))} ms, by hand ${fmt(loads.handSwap.at(-1))} ms`,
    )
  }
  return loads
}

function pooled(runs: StreamRun[], key: 'ttftMs' | 'gapMs'): number[] {
  return runs.flatMap((r) => r[key])
}

function report(samples: Samples, loads: Loads, cpu: SvcCpu): SectionResult {
  const rows: string[] = []
  const goals: Goal[] = []
  for (const c of CONCURRENCY) {
    const tps = (p: Path) => median(samples[p][c].map((r) => r.tokensPerSecond))
    const ttft = (p: Path, q: number) => quantile(pooled(samples[p][c], 'ttftMs'), q)
    const gap = (p: Path, q: number) => quantile(pooled(samples[p][c], 'gapMs'), q)
    for (const p of ['direct', 'svc'] as const) {
      const errors = samples[p][c].reduce((n, r) => n + r.errors, 0)
      rows.push(
        `| ${p === 'direct' ? 'llama-server direct' : 'through svc (auth on)'} | ${c} | ${fmt(tps(p))} | ${fmt(ttft(p, 0.5), 2)} | ${fmt(ttft(p, 0.99), 2)} | ${fmt(gap(p, 0.5), 3)} | ${fmt(gap(p, 0.99), 3)} | ${errors} |`,
      )
    }
    const tpsRatio = tps('svc') / tps('direct')
    goals.push(
      {
        measure: `tokens/s through svc vs direct, c=${c}`,
        value: ratio(tps('svc'), tps('direct')),
        goal: '≥ 0.97×',
        met: tpsRatio >= 0.97,
      },
      {
        measure: `time to first token added, p50 (p99), c=${c}`,
        value: `${fmt(ttft('svc', 0.5) - ttft('direct', 0.5), 2)} ms (${fmt(ttft('svc', 0.99) - ttft('direct', 0.99), 2)} ms)`,
        goal: '≤ 1 ms (p50)',
        met: ttft('svc', 0.5) - ttft('direct', 0.5) <= 1,
      },
      {
        measure: `inter-token gap added, p99 (p50), c=${c}`,
        value: `${fmt(gap('svc', 0.99) - gap('direct', 0.99), 3)} ms (${fmt(gap('svc', 0.5) - gap('direct', 0.5), 3)} ms)`,
        goal: '≤ 0.5 ms (p99)',
        met: gap('svc', 0.99) - gap('direct', 0.99) <= 0.5,
      },
    )
  }
  const perToken = CONCURRENCY.map((c) => `c=${c} ${fmt((cpu[c].ms * 1000) / cpu[c].tokens)} µs`).join(', ')
  goals.push({ measure: "svc's CPU time per token relayed", value: perToken, goal: '—', met: undefined })
  const addedLoad = median(loads.svcLoad) - median(loads.handLoad)
  goals.push(
    {
      measure: 'slot load to ready vs the engine alone',
      value: `+${fmt(addedLoad)} ms (${fmt(median(loads.svcLoad))} vs ${fmt(median(loads.handLoad))} ms)`,
      goal: '≤ +150 ms',
      met: addedLoad <= 150,
    },
    {
      measure: 'swap end to end (unload a, load b) vs by hand',
      value: `${fmt(median(loads.svcSwap))} ms vs ${fmt(median(loads.handSwap))} ms`,
      goal: '—',
      met: undefined,
    },
  )
  const perRound = (p: Path, c: 1 | 4) => samples[p][c].map((r) => fmt(r.tokensPerSecond)).join(', ')
  const markdown = [
    '## Real engine: llama-server (tiny GGUF, --parallel 4) direct vs through svc',
    '',
    `Streaming chat, ${REQUESTS} requests of max_tokens ${TOKENS} per path, concurrency and round; median round for tokens/s, percentiles over all rounds' requests and token gaps. Loads: median of ${LOAD_ROUNDS} interleaved rounds.`,
    '',
    '| path | c | tokens/s | TTFT p50 ms | TTFT p99 ms | gap p50 ms | gap p99 ms | errors |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    '| load | median ms | every round ms |',
    '|---|---|---|',
    `| slot load to ready, through svc | ${fmt(median(loads.svcLoad))} | ${loads.svcLoad.map((v) => fmt(v)).join(', ')} |`,
    `| the engine alone, to its first /health 200 | ${fmt(median(loads.handLoad))} | ${loads.handLoad.map((v) => fmt(v)).join(', ')} |`,
    `| swap through svc (a → b, until ready) | ${fmt(median(loads.svcSwap))} | ${loads.svcSwap.map((v) => fmt(v)).join(', ')} |`,
    `| swap by hand (stop a, start b, /health) | ${fmt(median(loads.handSwap))} | ${loads.handSwap.map((v) => fmt(v)).join(', ')} |`,
    '',
    `svc's own CPU time per token relayed (from /proc, over all rounds): ${perToken}. With llama-server, svc and the client sharing the machine's cores, that time is taken from the engine once the cores are busy.`,
    '',
    'tokens/s per round:',
    '',
    '| path | c=1 | c=4 |',
    '|---|---|---|',
    `| direct | ${perRound('direct', 1)} | ${perRound('direct', 4)} |`,
    `| svc | ${perRound('svc', 1)} | ${perRound('svc', 4)} |`,
    '',
    ...goalTable(goals),
    '',
  ].join('\n')
  return { markdown, goals }
}
