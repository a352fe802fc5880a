import { execSync } from 'node:child_process'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { REPO_ROOT } from '@svc/testing'
import { runWrk } from './load'
import { startFakeUpstream, startNodeProxy, startSvc } from './peers'

const PRELOAD = pathToFileURL(join(REPO_ROOT, 'bench', 'cpu-profile-preload.mjs')).href
const dir = '/tmp/s26/prof'
async function cpuOf(pid: number) {
  const s = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ')
  return (Number(s[11]) + Number(s[12])) * 10
}
async function main() {
  const upstream = await startFakeUpstream(['--stream-chunks', '100'])
  const prof = process.env.PROF === '1'
  const svc =
    process.env.PEER === 'node'
      ? await startNodeProxy(upstream.url)
      : await startSvc(upstream.url, {
          auth: process.env.AUTH !== '0',
          env: prof ? { NODE_OPTIONS: `--import=${PRELOAD}`, BENCH_PROFILE_DIR: dir } : {},
        })
  if (process.env.PIN) execSync(`taskset -a -cp 1 ${svc.pid}`)
  await runWrk(svc, 32, 3)
  const c0 = await cpuOf(svc.pid!)
  const r = await runWrk(svc, 32, Number(process.env.S ?? 8))
  const c1 = await cpuOf(svc.pid!)
  const r1 = process.env.C1 === '0' ? { p50Ms: 0 } : await runWrk(svc, 1, 3)
  console.log(
    `${svc.name}: c32 ${r.rps.toFixed(0)} rps, cpu ${(((c1 - c0) * 1000) / (r.rps * Number(process.env.S ?? 8))).toFixed(1)} µs/req; c1 p50 ${(r1.p50Ms * 1000).toFixed(0)} µs`,
  )
  await svc.stop()
  await upstream.stop()
}
void main()
