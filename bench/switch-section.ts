/**
 * `switch`: what a user waits for when requests alternate between two models. The same two tiny
 * GGUFs (`writeTinyGguf`, seeds 1 and 2), one client sending 4-token chat requests A, B, A, B …,
 * each timed by the client, through: the engine alone (cold start per request), llama.cpp's router
 * with `--models-max 1` and as it ships (`--models-max 4`), and svc loading on request with memory
 * room for both (a spare slot opens) and with `max_loaded = 1` (a swap per request). Each peer gets
 * one warm-up pair, then BENCH_SWITCHES measured requests, every one a switch. The upstream pids
 * are read before and after the measured requests: where both models fit, nothing may reload.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeTinyGguf } from '@svc/testing'
import type { Goal, SectionResult } from './goals'
import { fmt, mean, quantile } from './stats'
import { engineAlone, type Ref, router, type SwitchPeer, svcPeer } from './switch-peers'

const SWITCHES = Number(process.env.BENCH_SWITCHES ?? 20)

interface SwitchRun {
  name: string
  ms: number[]
  before: number[]
  after: number[]
}

export async function switchSection(log: (line: string) => void): Promise<SectionResult> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-switch-models-'))
  try {
    await writeTinyGguf(join(dir, 'tiny-a.gguf'), { role: 'chat', seed: 1 })
    await writeTinyGguf(join(dir, 'tiny-b.gguf'), { role: 'chat', seed: 2 })
    const starts: (() => Promise<SwitchPeer>)[] = [
      async () => engineAlone(dir),
      () => router(dir, 1),
      () => router(dir, 4),
      () => svcPeer(dir, 1),
      () => svcPeer(dir),
    ]
    const runs: SwitchRun[] = []
    for (const start of starts) {
      const peer = await start()
      try {
        log(`  ${peer.name}: ${SWITCHES} alternating requests`)
        for (const model of ['tiny-a', 'tiny-b'] as const) await peer.send(model)
        const before = await peer.pids()
        const ms: number[] = []
        for (let i = 0; i < SWITCHES; i++) ms.push(await peer.send(i % 2 ? 'tiny-b' : ('tiny-a' as Ref)))
        runs.push({ name: peer.name, ms, before, after: await peer.pids() })
        log(`    p50 ${fmt(quantile(ms, 0.5), 1)} ms, mean ${fmt(mean(ms), 1)} ms`)
      } finally {
        await peer.stop()
      }
    }
    return render(runs)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

function render(runs: SwitchRun[]): SectionResult {
  const [alone, router1, router4, svcSwap, svcRoom] = runs as [
    SwitchRun,
    SwitchRun,
    SwitchRun,
    SwitchRun,
    SwitchRun,
  ]
  const p50 = (r: SwitchRun) => quantile(r.ms, 0.5)
  const same = (r: SwitchRun) =>
    r.before.length > 0 && r.before.join(' ') === r.after.join(' ') ? 'unchanged' : 'changed'
  const pids = (r: SwitchRun) =>
    r.before.length === 0 && r.after.length === 0
      ? 'none kept'
      : `${r.before.join(' ')} → ${r.after.join(' ')} (${same(r)})`
  const room = p50(svcRoom) / p50(router4)
  const swap = p50(svcSwap) / p50(router1)
  const noReload = same(svcRoom) === 'unchanged' && same(router4) === 'unchanged'
  const goals: Goal[] = [
    {
      measure:
        'switch, memory for both: svc p50 / router (--models-max 4) p50; upstream pids unchanged on both sides',
      value: `${fmt(room, 2)}× (${fmt(p50(svcRoom), 1)} vs ${fmt(p50(router4), 1)} ms); pids ${noReload ? 'unchanged' : 'changed'}`,
      goal: '≤ 1.1×, no reload',
      met: Number.isFinite(room) ? room <= 1.1 && noReload : undefined,
    },
    {
      measure: 'switch, memory for one: svc p50 / router (--models-max 1) p50',
      value: `${fmt(swap, 2)}× (${fmt(p50(svcSwap), 1)} vs ${fmt(p50(router1), 1)} ms)`,
      goal: '≤ 1.1×',
      met: Number.isFinite(swap) ? swap <= 1.1 : undefined,
    },
  ]
  const markdown = [
    '## switch: alternating A/B requests',
    '',
    `Two tiny GGUFs (seeds 1 and 2), one client, 4-token chat requests A, B, A, B …: one warm-up pair, then ${SWITCHES} requests, each a switch, each timed by the client. Engine arguments \`-c 512 --threads 1\` everywhere.`,
    '',
    '| peer | p50 ms | mean ms | p10–p90 ms | upstream pids before → after |',
    '|---|---|---|---|---|',
    ...[alone, router1, router4, svcSwap, svcRoom].map(
      (r) =>
        `| ${r.name} | ${fmt(p50(r), 1)} | ${fmt(mean(r.ms), 1)} | ${fmt(quantile(r.ms, 0.1), 1)}–${fmt(quantile(r.ms, 0.9), 1)} | ${pids(r)} |`,
    ),
    '',
  ].join('\n')
  return { markdown, goals }
}
