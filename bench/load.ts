/**
 * The hop section's load generator: wrk (a separate process, so the measuring does not share svc's
 * event loop) for request rate and latency.
 */
import { spawn } from 'node:child_process'
import { rm, writeFile } from 'node:fs/promises'
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
