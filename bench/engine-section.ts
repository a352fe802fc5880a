/**
 * The real-engine section of `pnpm bench`: llama-server with the tiny GGUF (`--parallel 4`) reached
 * directly, through svc (the build, auth on, bearer token) and, for reference, through the minimal
 * Node proxy (bench/node-proxy.mjs: what any proxy written in Node costs), streaming at c=1 and c=4 on each API
 * the engine serves — chat completions, Responses, Anthropic Messages — tokens/s, time to first token
 * and the gaps between tokens, judged by the same goals on each; and how long a slot load and a swap
 * take next to the same engine started by hand.
 *
 * The tiny model makes ~3,000 tokens/s on one thread, far more than a real model on this machine, so
 * svc's per-event cost shows as clearly as it ever can. Env: BENCH_ENGINE_REQUESTS (streams per
 * API, path, concurrency and round; default 24), BENCH_ENGINE_TOKENS (max_tokens, default 128),
 * BENCH_ENGINE_APIS (default chat,responses,messages), BENCH_ROUNDS, BENCH_LOAD_ROUNDS (default 5).
 */
import { commandLineOf, startByHand } from './engine-alone'
import { startEngineSvc } from './engine-svc'
import { type Goal, goalTable, type SectionResult } from './goals'
import { startNodeProxy } from './peers'
import { cpuMs } from './rss'
import { fmt, median, quantile, ratio } from './stats'
import {
  API_SHAPES,
  runStreams,
  STREAM_APIS,
  type StreamApi,
  type StreamRun,
  type StreamTarget,
} from './stream-client'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const REQUESTS = Number(process.env.BENCH_ENGINE_REQUESTS ?? 24)
const TOKENS = Number(process.env.BENCH_ENGINE_TOKENS ?? 128)
const LOAD_ROUNDS = Number(process.env.BENCH_LOAD_ROUNDS ?? 5)
const CONCURRENCY = [1, 4] as const
const APIS = chosenApis(process.env.BENCH_ENGINE_APIS)

type Path = 'direct' | 'node' | 'svc'
const PATHS: readonly Path[] = ['direct', 'node', 'svc']
type Concurrency = (typeof CONCURRENCY)[number]
type ApiSamples = Record<Path, Record<Concurrency, StreamRun[]>>
type Samples = Partial<Record<StreamApi, ApiSamples>>
/** A proxy's CPU time while it relayed, and the tokens it relayed, per API and concurrency. */
type ProxyCpu = Partial<Record<StreamApi, Record<Concurrency, { ms: number; tokens: number }>>>
type SvcCpu = Record<'node' | 'svc', ProxyCpu>

function chosenApis(list: string | undefined): StreamApi[] {
  const names = (list ?? STREAM_APIS.join(','))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  const unknown = names.filter((n) => !(STREAM_APIS as readonly string[]).includes(n))
  if (unknown.length || names.length === 0)
    throw new Error(
      `BENCH_ENGINE_APIS: ${unknown.length ? `unknown ${unknown.join(', ')}` : 'names no API'} (known: ${STREAM_APIS.join(', ')})`,
    )
  return names as StreamApi[]
}

export async function engineSection(log: (line: string) => void): Promise<SectionResult> {
  const svc = await startEngineSvc()
  let proxy: Awaited<ReturnType<typeof startNodeProxy>> | undefined
  try {
    await svc.load(svc.models.a)
    const upstream = await svc.upstream()
    const argv = await commandLineOf(upstream.pid)
    proxy = await startNodeProxy(upstream.base)
    const targets: Record<Path, StreamTarget> = {
      direct: { url: upstream.base, model: 'primary', headers: upstream.headers },
      node: { url: proxy.url, model: 'primary', headers: upstream.headers },
      svc: { url: svc.api.url, model: 'primary', headers: svc.headers },
    }
    log('engine: warming up')
    for (const api of APIS) {
      for (const path of PATHS) {
        await runStreams(targets[path], { concurrency: 4, requests: 16, maxTokens: TOKENS, api })
      }
    }
    const samples: Samples = {}
    const cpu: SvcCpu = { node: {}, svc: {} }
    for (const api of APIS) {
      samples[api] = { direct: { 1: [], 4: [] }, node: { 1: [], 4: [] }, svc: { 1: [], 4: [] } }
      cpu.node[api] = { 1: { ms: 0, tokens: 0 }, 4: { ms: 0, tokens: 0 } }
      cpu.svc[api] = { 1: { ms: 0, tokens: 0 }, 4: { ms: 0, tokens: 0 } }
    }
    const pids = { node: proxy.pid!, svc: svc.api.child.pid! }
    for (let round = 1; round <= ROUNDS; round++) {
      for (const c of CONCURRENCY) {
        for (const api of APIS) {
          // Rotate which path goes first, so none always runs on a warmer or colder machine.
          const order = PATHS.map((_, i) => PATHS[(i + round) % PATHS.length]!)
          for (const path of order) {
            const cpuBefore = path === 'direct' ? 0 : cpuMs(pids[path])
            const run = await runStreams(targets[path], {
              concurrency: c,
              requests: REQUESTS,
              maxTokens: TOKENS,
              api,
            })
            samples[api]![path][c].push(run)
            if (path !== 'direct') {
              cpu[path][api]![c].ms += cpuMs(pids[path]) - cpuBefore
              cpu[path][api]![c].tokens += run.tokens
            }
            log(
              `engine round ${round}/${ROUNDS} c=${c} ${api} ${path}: ${fmt(run.tokensPerSecond)} tokens/s, TTFT p50 ${fmt(quantile(run.ttftMs, 0.5), 2)} ms${run.errors ? `, ${run.errors} errors (${run.errorReasons.join('; ')})` : ''}`,
            )
          }
        }
      }
    }
    const loads = await measureLoads(svc, argv, log)
    return report(samples, loads, cpu)
  } finally {
    await proxy?.stop()
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

/**
 * The goals of one API at one concurrency, judged the same on every API: tokens/s through svc vs
 * direct, the time to first token svc adds, and the inter-token gap it adds.
 */
function streamGoals(api: StreamApi, c: Concurrency, samples: ApiSamples): Goal[] {
  const tps = (p: Path) => median(samples[p][c].map((r) => r.tokensPerSecond))
  const ttft = (p: Path, q: number) => quantile(pooled(samples[p][c], 'ttftMs'), q)
  const gap = (p: Path, q: number) => quantile(pooled(samples[p][c], 'gapMs'), q)
  const where = `${API_SHAPES[api].path} c=${c}`
  return [
    {
      measure: `tokens/s through svc vs direct, ${where}`,
      value: ratio(tps('svc'), tps('direct')),
      goal: '≥ 0.95×',
      met: tps('svc') / tps('direct') >= 0.95,
    },
    {
      measure: `time to first token added, p50 (p99), ${where}`,
      value: `${fmt(ttft('svc', 0.5) - ttft('direct', 0.5), 2)} ms (${fmt(ttft('svc', 0.99) - ttft('direct', 0.99), 2)} ms)`,
      goal: '≤ 1 ms (p50)',
      met: ttft('svc', 0.5) - ttft('direct', 0.5) <= 1,
    },
    {
      measure: `inter-token gap added, p99 (p50), ${where}`,
      value: `${fmt(gap('svc', 0.99) - gap('direct', 0.99), 3)} ms (${fmt(gap('svc', 0.5) - gap('direct', 0.5), 3)} ms)`,
      goal: '≤ 0.5 ms (p99)',
      met: gap('svc', 0.99) - gap('direct', 0.99) <= 0.5,
    },
  ]
}

/** The same figures for the minimal Node proxy, unjudged: what the hop costs any Node proxy here. */
function nodeReference(api: StreamApi, c: Concurrency, samples: ApiSamples, usPerToken: number): Goal {
  const tps = (p: Path) => median(samples[p][c].map((r) => r.tokensPerSecond))
  const ttft = (p: Path) => quantile(pooled(samples[p][c], 'ttftMs'), 0.5)
  return {
    measure: `for reference, the minimal Node proxy, ${API_SHAPES[api].path} c=${c}: tokens/s vs direct, first token added (p50), CPU per token`,
    value: `${ratio(tps('node'), tps('direct'))}, ${fmt(ttft('node') - ttft('direct'), 2)} ms, ${fmt(usPerToken)} µs`,
    goal: '—',
    met: undefined,
  }
}

/** A row of the streaming table: one API, path and concurrency. */
function streamRow(api: StreamApi, p: Path, c: Concurrency, runs: StreamRun[]): string {
  const tps = median(runs.map((r) => r.tokensPerSecond))
  const ttft = (q: number) => quantile(pooled(runs, 'ttftMs'), q)
  const gap = (q: number) => quantile(pooled(runs, 'gapMs'), q)
  const errors = runs.reduce((n, r) => n + r.errors, 0)
  const who =
    p === 'direct'
      ? 'llama-server direct'
      : p === 'node'
        ? 'through the minimal Node proxy'
        : 'through svc (auth on)'
  return `| ${API_SHAPES[api].path} | ${who} | ${c} | ${fmt(tps)} | ${fmt(ttft(0.5), 2)} | ${fmt(ttft(0.99), 2)} | ${fmt(gap(0.5), 3)} | ${fmt(gap(0.99), 3)} | ${errors} |`
}

function report(samples: Samples, loads: Loads, cpu: SvcCpu): SectionResult {
  const rows: string[] = []
  const goals: Goal[] = []
  const perRound: string[] = []
  for (const api of APIS) {
    const of = samples[api]!
    for (const c of CONCURRENCY) {
      for (const p of PATHS) rows.push(streamRow(api, p, c, of[p][c]))
      goals.push(...streamGoals(api, c, of))
    }
    for (const p of PATHS) {
      const round = (c: Concurrency) => of[p][c].map((r) => fmt(r.tokensPerSecond)).join(', ')
      perRound.push(`| ${API_SHAPES[api].path} | ${p} | ${round(1)} | ${round(4)} |`)
    }
  }
  const usPerToken = (who: 'node' | 'svc', api: StreamApi, c: Concurrency) =>
    (cpu[who][api]![c].ms * 1000) / cpu[who][api]![c].tokens
  const perToken = (who: 'node' | 'svc') =>
    APIS.map(
      (api) =>
        `${API_SHAPES[api].path} ${CONCURRENCY.map((c) => `c=${c} ${fmt(usPerToken(who, api, c))} µs`).join(', ')}`,
    ).join('; ')
  for (const api of APIS) {
    for (const c of CONCURRENCY) {
      goals.push({
        measure: `svc's CPU time per token relayed, ${API_SHAPES[api].path} c=${c}`,
        value: `${fmt(usPerToken('svc', api, c))} µs`,
        goal: '≤ 50 µs',
        met: usPerToken('svc', api, c) <= 50,
      })
      goals.push(nodeReference(api, c, samples[api]!, usPerToken('node', api, c)))
    }
  }
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
  const markdown = [
    '## Real engine: llama-server (tiny GGUF, --parallel 4) direct, through svc and through the minimal Node proxy',
    '',
    `Streaming, ${REQUESTS} requests of max_tokens ${TOKENS} per API, path, concurrency and round (a token is a content delta event: a chat chunk, a Responses \`response.output_text.delta\`, a Messages \`content_block_delta\`); median round for tokens/s, percentiles over all rounds' requests and token gaps. Direct is the same request to llama-server's own endpoint. Loads: median of ${LOAD_ROUNDS} interleaved rounds.`,
    '',
    '| API | path | c | tokens/s | TTFT p50 ms | TTFT p99 ms | gap p50 ms | gap p99 ms | errors |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    '| load | median ms | every round ms |',
    '|---|---|---|',
    `| slot load to ready, through svc | ${fmt(median(loads.svcLoad))} | ${loads.svcLoad.map((v) => fmt(v)).join(', ')} |`,
    `| the engine alone, to its first /health 200 | ${fmt(median(loads.handLoad))} | ${loads.handLoad.map((v) => fmt(v)).join(', ')} |`,
    `| swap through svc (a → b, until ready) | ${fmt(median(loads.svcSwap))} | ${loads.svcSwap.map((v) => fmt(v)).join(', ')} |`,
    `| swap by hand (stop a, start b, /health) | ${fmt(median(loads.handSwap))} | ${loads.handSwap.map((v) => fmt(v)).join(', ')} |`,
    '',
    `svc's own CPU time per token relayed (from /proc, over all rounds): ${perToken('svc')}; the minimal Node proxy's: ${perToken('node')}. With llama-server, the proxy and the client sharing the machine's cores, that time is taken from the engine once the cores are busy.`,
    '',
    'tokens/s per round:',
    '',
    '| API | path | c=1 | c=4 |',
    '|---|---|---|---|',
    ...perRound,
    '',
    ...goalTable(goals),
    '',
  ].join('\n')
  return { markdown, goals }
}
