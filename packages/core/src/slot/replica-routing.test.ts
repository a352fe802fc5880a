/**
 * The routing policy's properties over random replica sets, loads, prefixes and sessions (issue 40):
 * a conversation's next turn goes where its prefix is unless that replica is overloaded; a new prefix
 * goes to the least loaded; a session pins unless its replica is gone, unhealthy or overloaded; an
 * unhealthy or absent replica never receives. The last property simulates interleaved conversations
 * through real prefix indexes.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { PrefixIndex } from './prefix-index'
import { chooseReplica, ROUTING_DEFAULTS, type RoutingCandidate, type RoutingInput } from './replica-routing'

const candidate = fc.record({
  healthy: fc.boolean(),
  inflight: fc.nat({ max: 8 }),
  matched: fc.nat({ max: 6 }),
})
/** 1–6 replicas with distinct ids, the prompt's block ends (ascending) and the rest of the input. */
const input = fc
  .record({
    replicas: fc.array(candidate, { minLength: 1, maxLength: 6 }),
    sizes: fc.array(fc.integer({ min: 1, max: 500 }), { minLength: 0, maxLength: 6 }),
    slack: fc.nat({ max: 4 }),
    minMatch: fc.double({ min: 0, max: 1, noNaN: true }),
    turn: fc.nat(),
    session: fc.option(fc.nat({ max: 8 }), { nil: undefined }),
  })
  .map((r): RoutingInput => {
    let end = 0
    const ends = r.sizes.map((s) => (end += s))
    const candidates: RoutingCandidate[] = r.replicas.map((c, i) => ({
      ...c,
      id: `r${i}`,
      matched: Math.min(c.matched, ends.length),
    }))
    return {
      candidates,
      ends,
      slack: r.slack,
      minMatch: r.minMatch,
      turn: r.turn,
      sessionReplica: r.session === undefined ? undefined : `r${r.session}`,
    }
  })

const leastOf = (cs: readonly RoutingCandidate[]) =>
  Math.min(...cs.filter((c) => c.healthy).map((c) => c.inflight))

describe('the replica choice', () => {
  it('never picks an unhealthy or absent replica, and picks one whenever one is healthy', () => {
    fc.assert(
      fc.property(input, (i) => {
        const choice = chooseReplica(i)
        if (!i.candidates.some((c) => c.healthy)) return choice === undefined
        const chosen = i.candidates[choice!.index]
        return chosen?.healthy === true
      }),
    )
  })

  it('sends a request to the replica holding its longest prefix unless that one is overloaded', () => {
    fc.assert(
      fc.property(input, (i) => {
        const plain = { ...i, sessionReplica: undefined }
        const healthy = plain.candidates.filter((c) => c.healthy)
        const longest = Math.max(0, ...healthy.map((c) => c.matched))
        const holders = healthy.filter((c) => c.matched === longest && longest > 0)
        const total = plain.ends.at(-1) ?? 0
        // The claim is about one replica clearly holding the most, above the share that counts.
        if (holders.length !== 1 || total === 0 || plain.ends[longest - 1]! / total < plain.minMatch) return
        const holder = holders[0]!
        const choice = chooseReplica(plain)!
        const overloaded = holder.inflight > leastOf(plain.candidates) + plain.slack
        if (overloaded) expect(plain.candidates[choice.index]).not.toBe(holder)
        else expect(choice).toMatchObject({ index: plain.candidates.indexOf(holder), reason: 'prefix' })
      }),
    )
  })

  it('sends a prompt no replica has seen to the least loaded, ties taking turns', () => {
    fc.assert(
      fc.property(input, (i) => {
        const fresh = {
          ...i,
          sessionReplica: undefined,
          candidates: i.candidates.map((c) => ({ ...c, matched: 0 })),
        }
        const choice = chooseReplica(fresh)
        if (!choice) return
        expect(choice.reason).toBe('least_loaded')
        expect(fresh.candidates[choice.index]!.inflight).toBe(leastOf(fresh.candidates))
      }),
    )
    // Two idle replicas, one new prompt after another: they alternate.
    const idle = [0, 1].map((n) => ({ id: `r${n}`, healthy: true, inflight: 0, matched: 0 }))
    const picks = [0, 1, 2, 3].map(
      (turn) => chooseReplica({ ...ROUTING_DEFAULTS, candidates: idle, ends: [100], turn })!.index,
    )
    expect(picks).toEqual([0, 1, 0, 1])
  })

  it('pins a session to its replica unless that one is gone, unhealthy or overloaded', () => {
    fc.assert(
      fc.property(input, (i) => {
        const choice = chooseReplica(i)
        if (!choice || i.sessionReplica === undefined) return
        const pinned = i.candidates.find((c) => c.id === i.sessionReplica)
        const usable = pinned?.healthy && pinned.inflight <= leastOf(i.candidates) + i.slack
        if (usable) expect(choice).toMatchObject({ index: i.candidates.indexOf(pinned!), reason: 'session' })
        else expect(choice.reason).not.toBe('session')
      }),
    )
  })

  it('keeps every turn of interleaved conversations on one replica while loads stay even', () => {
    // Conversations of 2–5 turns, each with its own first block, interleaved at random, with random
    // requests in flight elsewhere that stay within the slack: every turn lands where the first did.
    const scenario = fc.record({
      replicas: fc.integer({ min: 2, max: 4 }),
      order: fc.array(fc.nat({ max: 5 }), { minLength: 1, maxLength: 40 }),
      loads: fc.array(fc.array(fc.nat({ max: ROUTING_DEFAULTS.slack }), { minLength: 4, maxLength: 4 }), {
        minLength: 40,
        maxLength: 40,
      }),
    })
    fc.assert(
      fc.property(scenario, ({ replicas, order, loads }) => {
        const indexes = Array.from({ length: replicas }, () => new PrefixIndex(64))
        const turns = new Map<number, number>()
        const home = new Map<number, number>()
        order.forEach((conversation, step) => {
          const turn = turns.get(conversation) ?? 0
          turns.set(conversation, turn + 1)
          // Block k of conversation c: its own system prompt (1,000 chars), then 50-char messages.
          const blocks = Array.from({ length: 2 * turn + 2 }, (_, k) => conversation * 1_000 + k)
          const ends = blocks.map((_, k) => 1_000 + 50 * k)
          const candidates = indexes.map((index, r) => ({
            id: `r${r}`,
            healthy: true,
            inflight: loads[step]![r]!,
            matched: index.match(blocks),
          }))
          const choice = chooseReplica({ ...ROUTING_DEFAULTS, candidates, ends, turn: step })!
          indexes[choice.index]!.record(blocks)
          if (turn === 0) home.set(conversation, choice.index)
          else expect(choice).toMatchObject({ index: home.get(conversation), reason: 'prefix' })
        })
      }),
    )
  })
})
