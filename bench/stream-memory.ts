/**
 * Memory per open stream: BENCH_STREAMS (default 500) slow streamed chat completions held open at
 * once through svc (a remote slot in front of the fake upstream sending one event every 100 ms), and
 * svc's RSS with them open next to its RSS idle. The fake upstream's own growth is shown beside it:
 * what a bare Node HTTP server pays for the same streams.
 */
import { Agent, type ClientRequest, request } from 'node:http'
import { type Goal, goalTable, type SectionResult } from './goals'
import { type Peer, startFakeUpstream, startSvc } from './peers'
import { rssKb } from './rss'
import { fmt, median } from './stats'

const STREAMS = Number(process.env.BENCH_STREAMS ?? 500)

export async function streamMemorySection(log: (line: string) => void): Promise<SectionResult> {
  // 600 events 100 ms apart: a minute per stream, far longer than opening them all takes.
  const upstream = await startFakeUpstream(['--stream-chunks', '600', '--chunk-interval-ms', '100'])
  const svc = await startSvc(upstream.url)
  try {
    const svcPid = svc.pid!
    const upstreamPid = upstream.pid!
    // Warm-up: the streaming code paths run (and are compiled) before the idle figure is taken.
    await closeAll(await openStreams(svc, 50))
    await settle()
    const idle = { svc: await sampleRss(svcPid), upstream: await sampleRss(upstreamPid) }
    const youngIdle = await youngGenerationKb(svc)
    const began = performance.now()
    const held = await openStreams(svc, STREAMS)
    const openMs = performance.now() - began
    await settle()
    const open = { svc: await sampleRss(svcPid), upstream: await sampleRss(upstreamPid) }
    const youngOpen = await youngGenerationKb(svc)
    await closeAll(held)
    await settle()
    const after = await sampleRss(svcPid)
    const perStream = (from: number, to: number) => ((to - from) * 1024) / STREAMS / 1000
    const svcKb = perStream(idle.svc, open.svc)
    const upKb = perStream(idle.upstream, open.upstream)
    // V8 sizes its young generation by the allocation rate, up to 2 × 16 MiB by default: a step that
    // 500 streams' events take it to, not memory each stream holds (docs/development.md, Memory).
    const youngGrowth = youngOpen - youngIdle
    const beyondKb = perStream(idle.svc, open.svc - youngGrowth)
    log(
      `memory: ${STREAMS} streams open in ${fmt(openMs)} ms; svc ${fmt(idle.svc / 1024, 1)} → ${fmt(open.svc / 1024, 1)} MiB (${fmt(svcKb, 1)} KB per stream)`,
    )
    const goals: Goal[] = [
      {
        measure: 'RSS per open stream (svc)',
        value: `${fmt(svcKb, 1)} KB`,
        goal: '≤ 50 KB',
        met: svcKb <= 50,
      },
      {
        measure: "for reference: RSS per open stream (svc) beyond its young generation's growth",
        value: `${fmt(beyondKb, 1)} KB (young generation ${fmt(youngIdle / 1024, 1)} → ${fmt(youngOpen / 1024, 1)} MiB)`,
        goal: '—',
        met: undefined,
      },
    ]
    const markdown = [
      `## Memory: ${STREAMS} slow streams held open at once`,
      '',
      `Streamed chat completions through svc (remote slot, auth off) from the fake upstream, one event every 100 ms; all ${STREAMS} had their first event before the figure was taken (opened in ${fmt(openMs)} ms). RSS from /proc, median of 5 readings 200 ms apart, after 1 s of settling. KB = 1000 bytes.`,
      '',
      '| process | RSS idle MiB | RSS with streams open MiB | per stream KB | RSS after they closed MiB |',
      '|---|---|---|---|---|',
      `| svc | ${fmt(idle.svc / 1024, 1)} | ${fmt(open.svc / 1024, 1)} | ${fmt(svcKb, 1)} | ${fmt(after / 1024, 1)} |`,
      `| fake upstream (bare Node server, for scale) | ${fmt(idle.upstream / 1024, 1)} | ${fmt(open.upstream / 1024, 1)} | ${fmt(upKb, 1)} | |`,
      '',
      `svc's V8 young generation (\`nodejs_heap_space_size_total_bytes{space="new"}\` from its /api/metrics): ${fmt(youngIdle / 1024, 1)} MiB idle, ${fmt(youngOpen / 1024, 1)} MiB with the streams open. V8 sizes it by the allocation rate (two semi-spaces of up to 16 MiB each by default), so the step it takes under the streams' events is part of the RSS growth but not memory each stream holds: without it, ${fmt(beyondKb, 1)} KB per stream. Why svc keeps V8's default cap: docs/development.md (Memory).`,
      '',
      ...goalTable(goals),
      '',
    ].join('\n')
    return { markdown, goals }
  } finally {
    await svc.stop().catch(() => undefined)
    await upstream.stop().catch(() => undefined)
  }
}

/** Opens `n` streams at once; resolves when every one has received its first event. */
async function openStreams(peer: Peer, n: number): Promise<ClientRequest[]> {
  const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY })
  const body = JSON.stringify({
    model: peer.model,
    stream: true,
    messages: [{ role: 'user', content: 'Hi' }],
  })
  return Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<ClientRequest>((resolve, reject) => {
          const req = request(`${peer.url}/v1/chat/completions`, {
            method: 'POST',
            agent,
            headers: { 'content-type': 'application/json', ...peer.headers },
          })
          req.on('response', (res) => {
            if (res.statusCode !== 200) reject(new Error(`stream: status ${res.statusCode}`))
            res.once('data', () => resolve(req))
            res.on('data', () => undefined)
            res.on('error', () => undefined)
          })
          req.on('error', reject)
          req.end(body)
        }),
    ),
  )
}

async function closeAll(requests: ClientRequest[]): Promise<void> {
  for (const req of requests) req.destroy()
}

/** The committed size of svc's V8 young generation (KB), from its Prometheus metrics. */
async function youngGenerationKb(peer: Peer): Promise<number> {
  const text = await (await fetch(`${peer.url}/api/metrics`, { headers: peer.headers })).text()
  const m = /^nodejs_heap_space_size_total_bytes\{space="new"\} (\d+)/m.exec(text)
  if (!m) throw new Error("svc's /api/metrics has no nodejs_heap_space_size_total_bytes for the new space")
  return Number(m[1]) / 1024
}

function settle(ms = 1000): Promise<void> {
  return new Promise((r) => setTimeout(r, ms))
}

/** Median of 5 readings 200 ms apart (the client keeps reading meanwhile). */
async function sampleRss(pid: number): Promise<number> {
  const readings: number[] = []
  for (let i = 0; i < 5; i++) {
    readings.push(rssKb(pid))
    await settle(200)
  }
  return median(readings)
}
