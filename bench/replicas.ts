/**
 * Several processes of one configuration, measured in turn. Identical svc processes on the shared
 * 2-core VM differed by up to 8 % in steady req/s for as long as they ran (two processes of the same
 * build and config, 24 alternating pairs of 1 s: 1.08×), so a configuration measured through a single
 * process carries that draw; goals that compare configurations use BENCH_PROCESSES of each.
 */
import type { Peer } from './peers'

export const PROCESSES = Number(process.env.BENCH_PROCESSES ?? 2)

/** `first` and `PROCESSES - 1` more started with `start`, each warmed up by `warm`. */
export async function withReplicas(
  first: Peer,
  start: () => Promise<Peer>,
  warm: (peer: Peer) => Promise<unknown>,
): Promise<Peer[]> {
  const group = [first]
  while (group.length < PROCESSES) {
    const peer = await start()
    await warm(peer)
    group.push(peer)
  }
  return group
}

/** The process of `group` that round `round` (from 1) measures. */
export function inTurn(group: readonly Peer[], round: number): Peer {
  return group[(round - 1) % group.length]!
}
