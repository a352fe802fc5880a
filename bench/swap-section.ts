/**
 * `BENCH_SECTIONS=swap pnpm bench`: a swap under load. One slot with `load_on_request`, two tiny
 * GGUF refs A and B, real llama-server; `BENCH_SWAP_CLIENTS` (default 8) clients each send chat
 * requests alternating A and B for `BENCH_SWAP_SECONDS` (default 20) s. Run twice in one process:
 * with the swap-aware ordering (`max_swap_wait = "5s"`: the loaded model's requests go first, a
 * swap waits up to 5 s) and without it (`max_swap_wait = 0`: the oldest request decides, so the slot
 * swaps whenever the other model waits). Reports requests/s, p50/p99 latency and swaps for each.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type ApiProcess, startApi, writeTinyGguf } from '@svc/testing'
import type { SectionResult } from './goals'
import { fmt, quantile, ratio } from './stats'

const ARGS = ['-c', '512', '-np', '4', '--threads', '1']

interface SwapRun {
  label: string
  requests: number
  errors: number
  /** Error answers by status (`0`: no answer at all). */
  errorKinds: Record<string, number>
  seconds: number
  p50Ms: number
  p99Ms: number
  swaps: number
}

export async function swapSection(log: (line: string) => void): Promise<SectionResult> {
  const clients = Number(process.env.BENCH_SWAP_CLIENTS ?? 8)
  const seconds = Number(process.env.BENCH_SWAP_SECONDS ?? 20)
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-swap-'))
  try {
    const a = (await writeTinyGguf(join(dir, 'tiny-a.gguf'), { role: 'chat', seed: 1 })).path
    const b = (await writeTinyGguf(join(dir, 'tiny-b.gguf'), { role: 'chat', seed: 2 })).path
    const runs: SwapRun[] = []
    for (const [label, wait] of [
      ['swap-aware (max_swap_wait 5s)', '"5s"'],
      ['arrival order (max_swap_wait 0)', '0'],
    ] as const) {
      log(`  ${label}: ${clients} clients, ${seconds} s`)
      runs.push(await oneRun({ dir, label, wait, models: [a, b], clients, seconds }))
    }
    const [aware, plain] = runs as [SwapRun, SwapRun]
    const rps = (r: SwapRun) => r.requests / r.seconds
    const markdown = [
      '## Swap under load',
      '',
      `One slot with load_on_request, refs A and B (tiny GGUFs, real llama-server), ${clients} clients alternating A/B for ${seconds} s each run.`,
      '',
      '| ordering | req/s | p50 ms | p99 ms | swaps | errors |',
      '|---|---|---|---|---|---|',
      ...runs.map(
        (r) =>
          `| ${r.label} | ${fmt(rps(r), 1)} | ${fmt(r.p50Ms)} | ${fmt(r.p99Ms)} | ${r.swaps} | ${r.errors}${r.errors ? ` (${JSON.stringify(r.errorKinds)})` : ''} |`,
      ),
      '',
      `Swap-aware vs arrival order: ${ratio(rps(aware), rps(plain))} the requests/s, ${ratio(aware.p99Ms, plain.p99Ms)} the p99.`,
      '',
    ].join('\n')
    return {
      markdown,
      goals: [
        {
          // Fewer swaps is what the ordering is for; req/s and p99 are reported, not judged: with a
          // tiny model a swap costs ~0.1 s, so batching can cost throughput here that it saves with
          // a real model whose swap takes seconds.
          measure: 'swap under load: swaps, swap-aware vs arrival order',
          value: `${aware.swaps} vs ${plain.swaps}`,
          goal: 'fewer',
          met: aware.swaps < plain.swaps,
        },
        {
          measure: 'swap under load: errors',
          value: String(aware.errors + plain.errors),
          goal: '0',
          met: aware.errors + plain.errors === 0,
        },
      ],
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

async function oneRun(o: {
  dir: string
  label: string
  wait: string
  models: [string, string]
  clients: number
  seconds: number
}): Promise<SwapRun> {
  const configDir = await mkdtemp(join(o.dir, 'config-'))
  await mkdir(join(configDir, 'slots'), { recursive: true })
  await writeFile(
    join(configDir, 'slots', 'primary.toml'),
    `runtime = "process"\nbackend = "cpu"\nrestart = "no"\nargs = ${JSON.stringify(ARGS)}\n` +
      // max_loaded = 1: a swap on every alternation (memory room would open a spare slot instead).
      `load_on_request = true\nmax_swap_wait = ${o.wait}\nmax_loaded = 1\n`,
  )
  const api = await startApi({
    configDir,
    built: true,
    env: { SVC_LOG_LEVEL: 'info', SVC_UNLOAD_GRACE: '5' },
  })
  try {
    // Loading each file once registers its ref (tiny-a, tiny-b).
    for (const path of [o.models[1], o.models[0]])
      await post(api, '/api/slots/primary/load?wait=true', { model: path })
    const before = await swaps(api)
    const latencies: number[] = []
    let errors = 0
    const errorKinds: Record<string, number> = {}
    const started = performance.now()
    const until = started + o.seconds * 1000
    await Promise.all(
      Array.from({ length: o.clients }, async (_, client) => {
        for (let i = client; performance.now() < until; i++) {
          const t = performance.now()
          const res = await fetch(`${api.url}/v1/chat/completions`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              model: i % 2 ? 'tiny-b' : 'tiny-a',
              messages: [{ role: 'user', content: 'hi' }],
              max_tokens: 4,
            }),
          }).catch(() => undefined)
          await res?.arrayBuffer()
          if (res?.ok) latencies.push(performance.now() - t)
          else {
            errors++
            const kind = String(res?.status ?? 0)
            errorKinds[kind] = (errorKinds[kind] ?? 0) + 1
          }
        }
      }),
    )
    const elapsed = (performance.now() - started) / 1000
    latencies.sort((x, y) => x - y)
    return {
      label: o.label,
      requests: latencies.length,
      errors,
      errorKinds,
      seconds: elapsed,
      p50Ms: quantile(latencies, 0.5),
      p99Ms: quantile(latencies, 0.99),
      swaps: (await swaps(api)) - before,
    }
  } finally {
    await api[Symbol.asyncDispose]()
  }
}

async function post(api: ApiProcess, path: string, body: unknown): Promise<void> {
  const res = await fetch(`${api.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`)
}

/** Loads on request so far (`svc_slot_auto_total`): each one is a swap once the slot holds a model. */
async function swaps(api: ApiProcess): Promise<number> {
  const text = await (await fetch(`${api.url}/api/metrics`)).text()
  const line = text
    .split('\n')
    .find(
      (l) =>
        l.startsWith('svc_slot_auto_total{') && l.includes('action="load"') && l.includes('reason="request"'),
    )
  return line ? Number(line.split(' ').at(-1)) : 0
}
