/**
 * Load generators: wrk (a separate process, so the measuring does not share svc's event loop) for
 * request rate and latency, and a small Node client for SSE events/s and time to first byte.
 */
import { spawn } from 'node:child_process'
import { rm, writeFile } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Peer } from './peers'

export interface WrkResult {
  rps: number
  p50Ms: number
  p99Ms: number
  errors: number
}

export async function runWrk(peer: Peer, connections: number, seconds: number): Promise<WrkResult> {
  const body = JSON.stringify({
    model: peer.model,
    messages: [{ role: 'user', content: 'Say hello.' }],
    max_tokens: 8,
  })
  const script = join(tmpdir(), `svc-bench-${process.pid}-${peer.model}.lua`)
  const headers = Object.entries({ 'Content-Type': 'application/json', ...peer.headers })
    .map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`)
    .join('\n')
  await writeFile(script, `wrk.method = "POST"\nwrk.body = ${JSON.stringify(body)}\n${headers}\n`)
  const threads = Math.min(connections, 2)
  const out = await run('wrk', [
    '-t',
    String(threads),
    '-c',
    String(connections),
    '-d',
    `${seconds}s`,
    '--latency',
    '-s',
    script,
    `${peer.url}/v1/chat/completions`,
  ]).finally(() => rm(script, { force: true }))
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? Number.NaN)
  const p50 = parseLatency(/\s50%\s+([\d.]+)(us|ms|s)/.exec(out))
  const p99 = parseLatency(/\s99%\s+([\d.]+)(us|ms|s)/.exec(out))
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0)
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out)
  const errors = non2xx + (socketErrors ? socketErrors.slice(1).reduce((a, b) => a + Number(b), 0) : 0)
  return { rps, p50Ms: p50, p99Ms: p99, errors }
}

function parseLatency(m: RegExpExecArray | null): number {
  if (!m) return Number.NaN
  const v = Number(m[1])
  return m[2] === 'us' ? v / 1000 : m[2] === 's' ? v * 1000 : v
}

export interface SseResult {
  eventsPerSecond: number
  ttfbMs: number
}

/** Sequential streamed chat requests; events/s over all of them and the median time to first byte. */
export async function runSse(peer: Peer, requests: number): Promise<SseResult> {
  const body = JSON.stringify({
    model: peer.model,
    stream: true,
    messages: [{ role: 'user', content: 'Count.' }],
  })
  const url = new URL(`${peer.url}/v1/chat/completions`)
  let events = 0
  let totalMs = 0
  const ttfbs: number[] = []
  for (let i = 0; i < requests; i++) {
    const started = performance.now()
    const result = await new Promise<{ events: number; ttfb: number }>((resolve, reject) => {
      const req = request(
        url,
        { method: 'POST', headers: { 'content-type': 'application/json', ...peer.headers } },
        (res) => {
          const ttfb = performance.now() - started
          let n = 0
          let carry = ''
          res.on('data', (chunk: Buffer) => {
            const text = carry + chunk.toString()
            const parts = text.split('\n\n')
            carry = parts.pop() ?? ''
            n += parts.filter((p) => p.startsWith('data:')).length
          })
          res.on('end', () => resolve({ events: n, ttfb }))
          res.on('error', reject)
        },
      )
      req.on('error', reject)
      req.end(body)
    })
    totalMs += performance.now() - started
    events += result.events
    ttfbs.push(result.ttfb)
  }
  ttfbs.sort((a, b) => a - b)
  return {
    eventsPerSecond: (events / totalMs) * 1000,
    ttfbMs: ttfbs[Math.floor(ttfbs.length / 2)] ?? Number.NaN,
  }
}

function run(cmd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (d) => {
      out += d
    })
    child.stderr.on('data', (d) => {
      out += d
    })
    child.on('error', reject)
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${cmd} failed: ${out}`))))
  })
}
