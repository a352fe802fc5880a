/**
 * `switch`: what a user waits for when requests alternate between two models. The same two tiny
 * GGUFs (`writeTinyGguf`, seeds 1 and 2), one client sending 4-token chat requests A, B, A, B …,
 * each timed by the client, through: the engine alone (cold start per request), llama.cpp's router
 * with `--models-max 1` and as it ships (`--models-max 4`), and svc loading on request with memory
 * room for both (a spare slot opens) and with `max_loaded = 1` (a swap per request). All run at
 * once; each gets one first pair, then BENCH_SWITCH_WARMUP warm-up switches (default 200), then
 * BENCH_SWITCHES measured requests, every one a switch, in 5 rounds (each peer its share in turn,
 * the order reversed in even rounds, so a drift of the machine hits every peer alike). The upstream
 * pids are read before and after the measured requests: where both models fit, nothing may reload.
 *
 * Why a warm-up: svc is JavaScript, and V8 compiles a function to fast code only after some hundreds
 * of calls; a server that has run for a while has. Its first requests after a start run in V8's
 * slower tiers (~12 ms of CPU each against ~3 ms once warm). Every peer gets the same warm-up, and
 * the first 20 switches of it are reported too ("just started"), so that cost stays visible.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeTinyGguf } from '@svc/testing'
import type { Goal, SectionResult } from './goals'
import { fmt, mean, quantile, roundOrder } from './stats'
import { engineAlone, router, type SwitchPeer, svcPeer } from './switch-peers'

const SWITCHES = Number(process.env.BENCH_SWITCHES ?? 20)
/** Switches each peer makes before the measured ones (even: each peer ends on the model it began with). */
const WARMUP = Number(process.env.BENCH_SWITCH_WARMUP ?? 200)
/** The warm-up's first switches, reported as what a just-started server answers. */
const COLD = 20
/** Rounds the switches are split into (an even count per round keeps every request a switch). */
const ROUNDS = 5

interface SwitchRun {
  name: string
  ms: number[]
  /** The same times, one list per round. */
  rounds: number[][]
  /** The first {@link COLD} switches after the first pair: the server just started. */
  cold: number[]
  /** CPU ms the process in the middle used per measured request (NaN: none in the middle). */
  cpu: number
  before: number[]
  after: number[]
}

export async function switchSection(log: (line: string) => void): Promise<SectionResult> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-switch-models-'))
  try {
    await writeTinyGguf(join(dir, 'tiny-a.gguf'), { role: 'chat', seed: 1 })
    await writeTinyGguf(join(dir, 'tiny-b.gguf'), { role: 'chat', seed: 2 })
    // Listed so that the peers a goal compares are neighbours: they run back to back in every round.
    const peers: SwitchPeer[] = []
    try {
      peers.push(engineAlone(dir), await router(dir, 1), await svcPeer(dir, 1))
      peers.push(await svcPeer(dir), await router(dir, 4))
      const runs = new Map<SwitchPeer, SwitchRun>()
      for (const peer of peers) {
        for (const model of ['tiny-a', 'tiny-b'] as const) await peer.send(model)
        const cold: number[] = []
        for (let i = 0; i < WARMUP + (WARMUP % 2); i++) {
          const ms = await peer.send(i % 2 ? 'tiny-b' : 'tiny-a')
          if (i < COLD) cold.push(ms)
        }
        log(`  ${peer.name}: warmed up`)
        runs.set(peer, {
          name: peer.name,
          ms: [],
          rounds: [],
          cold,
          cpu: 0,
          before: await peer.pids(),
          after: [],
        })
      }
      for (let round = 1; round <= ROUNDS; round++) {
        for (const peer of roundOrder(peers, round)) {
          const run = runs.get(peer)!
          const round: number[] = []
          const cpuBefore = peer.cpuMs?.() ?? Number.NaN
          // Each peer last answered tiny-b: every request is a switch.
          for (let i = 0; i < SWITCHES / ROUNDS; i++) round.push(await peer.send(i % 2 ? 'tiny-b' : 'tiny-a'))
          run.cpu += (peer.cpuMs?.() ?? Number.NaN) - cpuBefore
          run.ms.push(...round)
          run.rounds.push(round)
        }
        log(`  round ${round}/${ROUNDS}`)
      }
      for (const [peer, run] of runs) {
        run.after = await peer.pids()
        run.cpu /= run.ms.length
      }
      const [alone, router1, svcSwap, svcRoom, router4] = [...runs.values()] as SwitchRun[]
      return render([alone!, router1!, router4!, svcSwap!, svcRoom!])
    } finally {
      for (const peer of peers) await peer.stop()
    }
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
  // The ratio round by round (each round's p50s): how far one round's reading strays on this box.
  const spread = (svc: SwitchRun, peer: SwitchRun) => {
    const ratios = svc.rounds.map((r, i) => quantile(r, 0.5) / quantile(peer.rounds[i] ?? [], 0.5))
    return `rounds ${fmt(Math.min(...ratios), 2)}–${fmt(Math.max(...ratios), 2)}`
  }
  const noReload = same(svcRoom) === 'unchanged' && same(router4) === 'unchanged'
  // The same ratio over the warm-up's first switches: a server just started.
  const started = (svc: SwitchRun, peer: SwitchRun) =>
    `just started: ${fmt(quantile(svc.cold, 0.5) / quantile(peer.cold, 0.5), 2)}×`
  const goals: Goal[] = [
    {
      measure:
        'switch, memory for both: svc p50 / router (--models-max 4) p50; upstream pids unchanged on both sides',
      value: `${fmt(room, 2)}× (${spread(svcRoom, router4)}; ${fmt(p50(svcRoom), 1)} vs ${fmt(p50(router4), 1)} ms; ${started(svcRoom, router4)}); pids ${noReload ? 'unchanged' : 'changed'}`,
      goal: '≤ 1.1×, no reload',
      met: Number.isFinite(room) ? room <= 1.1 && noReload : undefined,
    },
    {
      measure: 'switch, memory for one: svc p50 / router (--models-max 1) p50',
      value: `${fmt(swap, 2)}× (${spread(svcSwap, router1)}; ${fmt(p50(svcSwap), 1)} vs ${fmt(p50(router1), 1)} ms; ${started(svcSwap, router1)})`,
      goal: '≤ 1.1×',
      met: Number.isFinite(swap) ? swap <= 1.1 : undefined,
    },
  ]
  const markdown = [
    '## switch: alternating A/B requests',
    '',
    `Two tiny GGUFs (seeds 1 and 2), one client, 4-token chat requests A, B, A, B …: all peers running at once, each given a first pair and ${WARMUP} warm-up switches, then ${SWITCHES} requests, each a switch, each timed by the client, in ${ROUNDS} rounds (peers in the order below, reversed in even rounds). "Just started": the first ${COLD} warm-up switches, before V8 has compiled svc's request path to fast code. Engine arguments \`-c 512 --threads 1\` everywhere.`,
    '',
    '| peer | p50 ms | p50 ms per round | mean ms | p10–p90 ms | p50 ms, just started | CPU ms per request, in the middle | upstream pids before → after |',
    '|---|---|---|---|---|---|---|---|',
    ...[alone, router1, router4, svcSwap, svcRoom].map(
      (r) =>
        `| ${r.name} | ${fmt(p50(r), 1)} | ${r.rounds.map((x) => fmt(quantile(x, 0.5), 1)).join(', ')} | ${fmt(mean(r.ms), 1)} | ${fmt(quantile(r.ms, 0.1), 1)}–${fmt(quantile(r.ms, 0.9), 1)} | ${fmt(quantile(r.cold, 0.5), 1)} | ${Number.isNaN(r.cpu) ? '—' : fmt(r.cpu, 2)} | ${pids(r)} |`,
    ),
    '',
  ].join('\n')
  return { markdown, goals }
}
