/**
 * What each request allocates on svc's hop, usage off against the ledger with a quota check (a token
 * with all three limits): V8's sampling heap profiler (`HeapProfiler.startSampling`, a sample every
 * 4 KB allocated, objects already collected included) in a copy of the built API, over a few seconds
 * of wrk at c=32 in front of the fake upstream. Bytes per request hold steady on a shared VM where
 * time does not (eight runs of "off" read 24.5–25.2 KB), so a change that allocates half a KB or more
 * shows here when the req/s rounds cannot tell it from noise.
 *
 * Usage: `npx tsx bench/alloc.ts` (ALLOC_SECONDS, default 3). Prints markdown: the total per request
 * of each, and the functions whose allocation differs most (by the name and place V8 reports; the
 * same bytes can move between a function and its caller when V8 inlines differently).
 */
import { existsSync } from 'node:fs'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { BUILT_ENTRIES, ensureBuilt } from '@svc/testing'
import { runWrk } from './load'
import { type Peer, startFakeUpstream, startSvc } from './peers'
import { fmt } from './stats'
import { USAGE_OFF, USAGE_ON } from './usage-section'

const SECONDS = Number(process.env.ALLOC_SECONDS ?? 3)

/** Appended to the copy: SIGUSR2 starts sampling, the next one writes the profile to `<dir>/<pid>.json`. */
const SAMPLER = (dir: string) => `
{ const inspector = await import('node:inspector'); const fs = await import('node:fs')
  const session = new inspector.Session(); session.connect(); let sampling = false
  process.on('SIGUSR2', () => {
    if (!sampling) session.post('HeapProfiler.startSampling', { samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true }, () => {
      sampling = true; fs.writeFileSync(${JSON.stringify(dir)} + '/' + process.pid + '.started', '') })
    else session.post('HeapProfiler.stopSampling', (error, result) => { sampling = false
      fs.writeFileSync(${JSON.stringify(dir)} + '/' + process.pid + '.json', JSON.stringify(result.profile)) })
  }) }
`

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number }
  selfSize: number
  children: ProfileNode[]
}

async function main() {
  await ensureBuilt('api')
  const dir = join(tmpdir(), `svc-alloc-${process.pid}`)
  const entry = join(dirname(BUILT_ENTRIES.api), 'serve.alloc.js')
  await rm(dir, { recursive: true, force: true })
  await mkdir(dir)
  await writeFile(entry, (await readFile(BUILT_ENTRIES.api, 'utf8')) + SAMPLER(dir))
  const upstream = await startFakeUpstream()
  const peers: Peer[] = [upstream]
  try {
    const kinds = [
      { name: 'usage off', options: { ...USAGE_OFF, entry } },
      { name: 'ledger and quota on', options: { ...USAGE_ON, entry } },
    ]
    const perRequest = new Map<string, Map<string, number>>()
    for (const { name, options } of kinds) {
      const peer = await startSvc(upstream.url, options)
      peers.push(peer)
      await runWrk(peer, 32, 8) // warm: the profile is of the steady hop
      await signalAndWait(peer.pid!, join(dir, `${peer.pid}.started`))
      const run = await runWrk(peer, 32, SECONDS)
      await signalAndWait(peer.pid!, join(dir, `${peer.pid}.json`))
      const profile = JSON.parse(await readFile(join(dir, `${peer.pid}.json`), 'utf8')) as {
        head: ProfileNode
      }
      perRequest.set(name, bytesByFunction(profile.head, run.rps * SECONDS))
      console.error(`${name}: ${fmt(run.rps)} req/s while sampling`)
    }
    console.log(report(perRequest.get(kinds[0]!.name)!, perRequest.get(kinds[1]!.name)!))
  } finally {
    for (const p of peers.reverse()) await p.stop().catch(() => undefined)
    await rm(entry, { force: true })
    await rm(dir, { recursive: true, force: true })
  }
}

async function signalAndWait(pid: number, file: string) {
  process.kill(pid, 'SIGUSR2')
  for (let i = 0; i < 400 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 25))
  if (!existsSync(file)) throw new Error(`the sampler in process ${pid} did not answer`)
  await new Promise((r) => setTimeout(r, 100)) // the write may still be finishing
}

/** Bytes per request by function (name, file, line), over the whole sampled tree. */
function bytesByFunction(head: ProfileNode, requests: number): Map<string, number> {
  const out = new Map<string, number>()
  const walk = (node: ProfileNode) => {
    const f = node.callFrame
    const key = `${f.functionName || '(anonymous)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber}`
    out.set(key, (out.get(key) ?? 0) + node.selfSize / requests)
    for (const child of node.children) walk(child)
  }
  walk(head)
  return out
}

function report(off: Map<string, number>, on: Map<string, number>): string {
  const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0)
  const diffs = [...new Set([...off.keys(), ...on.keys()])]
    .map((k) => ({ k, off: off.get(k) ?? 0, on: on.get(k) ?? 0 }))
    .sort((a, b) => Math.abs(b.on - b.off) - Math.abs(a.on - a.off))
    .slice(0, 15)
  return [
    '## Allocated per request',
    '',
    `wrk at c=32 for ${SECONDS} s through the built API (auth on, bearer token), V8's sampling heap profiler.`,
    '',
    '| | usage off | ledger and quota on | more |',
    '|---|---|---|---|',
    `| total | ${fmt(total(off))} B | ${fmt(total(on))} B | ${fmt(total(on) - total(off))} B |`,
    ...diffs.map((d) => `| \`${d.k}\` | ${fmt(d.off)} | ${fmt(d.on)} | ${fmt(d.on - d.off)} |`),
    '',
  ].join('\n')
}

await main()
