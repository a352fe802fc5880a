/**
 * Several processes of one configuration, measured in turn. Identical svc processes on the shared
 * 2-core VM differed by up to 8 % in steady req/s for as long as they ran (two processes of the same
 * build and config, 24 alternating pairs of 1 s: 1.08×), so a configuration measured through a single
 * process carries that draw; goals that compare configurations use BENCH_PROCESSES of each.
 */
import type { Peer } from './peers'
import { roundOrder } from './stats'

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

/**
 * `rounds` rounds of `measure` over `groups` (each a configuration's processes), in `roundOrder`, each
 * group through its processes in turn. The results by the group's name (its first process's), in
 * round order; `after` sees each as it comes (for progress lines).
 */
export async function measureInRounds<R>(
  groups: readonly (readonly Peer[])[],
  rounds: number,
  measure: (peer: Peer) => Promise<R>,
  after?: (round: number, name: string, result: R) => void,
): Promise<Map<string, R[]>> {
  const results = new Map<string, R[]>(groups.map((g) => [g[0]!.name, []]))
  for (let round = 1; round <= rounds; round++) {
    for (const group of roundOrder(groups, round)) {
      const name = group[0]!.name
      const result = await measure(inTurn(group, round))
      results.get(name)!.push(result)
      after?.(round, name, result)
    }
  }
  return results
}
