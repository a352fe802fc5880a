/**
 * `replicas`: multi-turn conversations over a slot's replicas on one box. svc (the build) runs a
 * process slot with `replicas = 2` (two real llama-servers, `-np 4` each) and routing `cache`, then
 * the same with `least-loaded`; one llama-server alone (`-np 8`, room for every conversation) does
 * the same work as the yardstick. BENCH_CONVERSATIONS (8) conversations of BENCH_TURNS (4) turns, each
 * with its own system prompt of ~1,500 tokens, are sent interleaved, one request at a time: turn 1
 * of every conversation, then turn 2 …, the conversations in a shuffled order each round (the same
 * order for every run), each turn carrying the conversation so far. Streamed, so the client sees
 * the time to the first token.
 *
 * Read: the prompt tokens the engines processed (their own `/metrics`, `llamacpp:prompt_tokens_total`:
 * a prompt prefix found in the KV cache is not counted), the p50 time to first token of turns 2–4,
 * the tokens/s over the run, and each replica's share of the requests (svc's `/api/slots`).
 *
 * The engines' host-RAM prompt cache is off (`--cache-ram 0`; llama-server keeps up to 8 GiB of
 * evicted prompts by default): it would hold all eight of these prompts, where a server with many
 * more conversations than its caches hold — what replicas are for — would not. So each engine keeps
 * exactly what its KV cache holds (`-np 4`: four conversations per replica), the case cache-aware
 * routing is about. With the host cache on, least-loaded misses about once per conversation and
 * replica, which shows in the prompt tokens (1.96× one server's) and the mean time to first token
 * but not in its p50 (docs/development.md).
 *
 * The model is random-weight like the tests' but wider (256 wide, 4 layers): with the 64-wide tiny
 * one, processing a whole prompt costs about as little as the request around it, and the time to
 * first token could not show what the cache saves.
 */
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { llamaKeyHeaders, startApiWithConfig, startLlamaServer, writeTinyGguf } from '@svc/testing'
import { type Message, timedChat } from './chat-client'
import type { Goal, SectionResult } from './goals'
import { fmt, mean, quantile } from './stats'
import { loadSlot } from './switch-peers'

const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 8)
const TURNS = Number(process.env.BENCH_TURNS ?? 4)
/** The tiny vocabulary makes about one token of each character of hex words. */
const PROMPT_CHARS = 1_500
const MAX_TOKENS = 8
const MODEL = {
  role: 'chat',
  nEmbd: 256,
  nLayer: 4,
  nHead: 4,
  nFf: 512,
  contextLength: 8192,
  seed: 3,
} as const

/** The engine's host-RAM prompt cache off, in every run (see the file's comment). */
const NO_HOST_CACHE = ['--cache-ram', '0']

interface Run {
  name: string
  promptTokens: number
  followUpTtft: number[]
  tokensPerSecond: number
  /** Requests per replica (svc's counts), in replica order. */
  share: number[]
}

export async function replicasSection(log: (line: string) => void): Promise<SectionResult> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-replicas-'))
  try {
    const gguf = (await writeTinyGguf(join(dir, 'wide.gguf'), MODEL)).path
    const script = conversations()
    log('  one llama-server alone')
    const one = await oneServer(gguf, script)
    const runs: Run[] = [one]
    for (const routing of ['cache', 'least-loaded'] as const) {
      log(`  svc, replicas = 2, routing = "${routing}"`)
      runs.push(await throughSvc(gguf, routing, script))
    }
    return render(runs as [Run, Run, Run], script)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

interface Script {
  systems: string[]
  /** For each turn, the order in which the conversations send it. */
  orders: number[][]
}

function conversations(): Script {
  const systems = Array.from({ length: CONVERSATIONS }, (_, c) => {
    const words = [`You are assistant ${c + 1}.`]
    while (words.join(' ').length < PROMPT_CHARS) words.push(randomBytes(4).toString('hex'))
    return words.join(' ')
  })
  // A small seeded generator (mulberry32): the same orders in every run of the bench.
  let seed = 40
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const orders = Array.from({ length: TURNS }, () => {
    const order = Array.from({ length: CONVERSATIONS }, (_, c) => c)
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1))
      ;[order[i], order[j]] = [order[j]!, order[i]!]
    }
    return order
  })
  return { systems, orders }
}

/**
 * Sends the script to `base` as `model` and reads `processed` (the engines' prompt tokens so far)
 * before and after: the run's prompt tokens, first-token ms of turns 2+, and tokens/s overall.
 */
async function converse(
  name: string,
  base: string,
  model: string,
  script: Script,
  processed: () => Promise<number>,
): Promise<Omit<Run, 'share'>> {
  const histories: Message[][] = script.systems.map((content) => [{ role: 'system', content }])
  const followUpTtft: number[] = []
  let tokens = 0
  const before = await processed()
  const began = performance.now()
  for (const [turn, order] of script.orders.entries()) {
    for (const c of order) {
      const history = histories[c]!
      history.push({ role: 'user', content: `question ${turn + 1} of conversation ${c + 1}` })
      const answer = await timedChat(base, { model, messages: history, max_tokens: MAX_TOKENS })
      if (turn > 0) followUpTtft.push(answer.firstMs)
      tokens += answer.completionTokens
      history.push({ role: 'assistant', content: answer.content })
    }
  }
  const tokensPerSecond = (tokens / (performance.now() - began)) * 1000
  return { name, promptTokens: (await processed()) - before, followUpTtft, tokensPerSecond }
}

/** Prompt tokens a llama-server has processed so far (its own counter). */
async function promptTokens(base: string, headers: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(`${base}/metrics`, { headers })).text()
  const line = /^llamacpp:prompt_tokens_total\s+(\S+)/m.exec(text)
  if (!line) throw new Error(`no llamacpp:prompt_tokens_total in ${base}/metrics`)
  return Number(line[1])
}

async function oneServer(gguf: string, script: Script): Promise<Run> {
  await using one = await startLlamaServer({
    model: gguf,
    alias: 'one',
    ctxSize: 8 * 4096,
    extraArgs: ['-np', '8', ...NO_HOST_CACHE],
  })
  const run = await converse('one llama-server (-np 8)', one.url, 'one', script, () => promptTokens(one.url))
  return { ...run, share: [] }
}

interface SlotBody {
  upstream: { pids?: string } | null
  replicas: { url: string | null; healthy: boolean; routed: Record<string, number> }[] | null
}

async function throughSvc(gguf: string, routing: string, script: Script): Promise<Run> {
  const args = JSON.stringify(['-c', String(4 * 4096), '-np', '4', '--threads', '1', ...NO_HOST_CACHE])
  await using api = await startApiWithConfig({
    built: true,
    env: { SVC_LOG_LEVEL: 'info' },
    slots: {
      primary: `runtime = "process"\nbackend = "cpu"\nrestart = "no"\nreplicas = 2\nrouting = "${routing}"\nargs = ${args}\n`,
    },
  })
  await loadSlot(api, 'primary', gguf)
  const slot = async () => (await (await fetch(`${api.url}/api/slots/primary`)).json()) as SlotBody
  const deadline = Date.now() + 60_000
  let s = await slot()
  while ((s.replicas ?? []).filter((r) => r.healthy).length < 2) {
    if (Date.now() > deadline) throw new Error('the two replicas did not become healthy')
    await new Promise((r) => setTimeout(r, 100))
    s = await slot()
  }
  // Each replica's own counter, read with the key svc gave it (the pids are in replica order).
  const pids = (s.upstream?.pids ?? '').split(' ').map(Number)
  const engines = await Promise.all(
    (s.replicas ?? []).map(async (r, i) => ({ url: r.url!, headers: await llamaKeyHeaders(pids[i]!) })),
  )
  const processed = async () =>
    (await Promise.all(engines.map((e) => promptTokens(e.url, e.headers)))).reduce((a, b) => a + b, 0)
  const run = await converse(`svc, 2 replicas, routing = "${routing}"`, api.url, 'primary', script, processed)
  const share = ((await slot()).replicas ?? []).map((r) => Object.values(r.routed).reduce((a, b) => a + b, 0))
  return { ...run, share }
}

function render([one, cache, spread]: [Run, Run, Run], script: Script): SectionResult {
  const p50 = (r: Run) => quantile(r.followUpTtft, 0.5)
  const tokensRatio = cache.promptTokens / one.promptTokens
  const ttftRatio = p50(cache) / p50(spread)
  const maxShare = Math.max(...cache.share) / cache.share.reduce((a, b) => a + b, 0)
  const shares = (r: Run) => {
    const sum = r.share.reduce((a, b) => a + b, 0)
    return r.share.length ? r.share.map((n) => `${fmt((n / sum) * 100)} %`).join(' / ') : '—'
  }
  const goals: Goal[] = [
    {
      measure: 'replicas, routing = "cache": prompt tokens the engines processed / one server’s',
      value: `${fmt(tokensRatio, 2)}× (${cache.promptTokens} vs ${one.promptTokens})`,
      goal: '≤ 1.2×',
      met: Number.isFinite(tokensRatio) ? tokensRatio <= 1.2 : undefined,
    },
    {
      measure: 'replicas: p50 time to first token of turns 2+, "cache" / "least-loaded"',
      value: `${fmt(ttftRatio, 2)}× (${fmt(p50(cache), 1)} vs ${fmt(p50(spread), 1)} ms)`,
      goal: '≤ 0.5×',
      met: Number.isFinite(ttftRatio) ? ttftRatio <= 0.5 : undefined,
    },
    {
      measure: 'replicas, routing = "cache": the busiest replica’s share of the requests',
      value: `${fmt(maxShare * 100)} %`,
      goal: '≤ 70 %',
      met: Number.isFinite(maxShare) ? maxShare <= 0.7 : undefined,
    },
  ]
  const markdown = [
    '## replicas: conversations over two local replicas',
    '',
    `${CONVERSATIONS} conversations × ${TURNS} turns, each with its own system prompt of ${PROMPT_CHARS} characters (about as many tokens), sent one at a time, turn by turn, the conversations shuffled each round (orders ${script.orders.map((o) => o.map((c) => c + 1).join(',')).join(' | ')}); ${MAX_TOKENS} tokens per answer, streamed. Model: random weights, ${MODEL.nEmbd} wide, ${MODEL.nLayer} layers, CPU, one thread per engine.`,
    '',
    '| run | prompt tokens processed | × one server | ms to first token, turns 2+: p50 / mean / p90 | tokens/s | requests per replica |',
    '|---|---|---|---|---|---|',
    ...[one, cache, spread].map(
      (r) =>
        `| ${r.name} | ${r.promptTokens} | ${fmt(r.promptTokens / one.promptTokens, 2)}× | ${fmt(p50(r), 1)} / ${fmt(mean(r.followUpTtft), 1)} / ${fmt(quantile(r.followUpTtft, 0.9), 1)} | ${fmt(r.tokensPerSecond, 1)} | ${shares(r)} |`,
    ),
    '',
  ].join('\n')
  return { markdown, goals }
}
