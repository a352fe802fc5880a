import { runWrk } from './load'
import { type Peer, startFakeUpstream, startSvc } from './peers'
import { mainThreadCpuNs, rssKb } from './rss'
import { median } from './stats'
import { USAGE_OFF, USAGE_ON } from './usage-section'
const ROUNDS = Number(process.env.ROUNDS ?? 48)
async function main() {
  const up = await startFakeUpstream()
  const off = { ...(await startSvc(up.url, USAGE_OFF)), name: 'off' }
  const on = { ...(await startSvc(up.url, USAGE_ON)), name: 'on' }
  const made = await fetch(`${on.url}/api/auth/tokens`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-email': 'bench@localhost' }, body: JSON.stringify({ label: 'nl', scope: 'v1-only' }) })
  const { token } = (await made.json()) as { token: string }
  const unl = { ...on, name: 'unl', headers: { authorization: `Bearer ${token}` } }
  for (const p of [off, on, unl]) await runWrk(p, 32, 5)
  const series: Record<string, { rps: number; us: number }[]> = { off: [], on: [], unl: [] }
  const orders = [[off, on, unl], [on, unl, off], [unl, off, on], [unl, on, off], [on, off, unl], [off, unl, on]]
  for (let i = 0; i < ROUNDS; i++) {
    for (const p of orders[i % 6]!) {
      await runWrk(p, 32, 1)
      const b = mainThreadCpuNs(p.pid!)
      const r = await runWrk(p, 32, 1)
      series[p.name]!.push({ rps: r.rps, us: (mainThreadCpuNs(p.pid!) - b) / 1000 / r.rps })
    }
    if (i % 8 === 7) {
      const s = (k: string) => series[k]!.slice(-8)
      console.log(`rounds ${i - 6}-${i + 1}: off ${median(s('off').map((x) => x.rps)).toFixed(0)} req/s ${median(s('off').map((x) => x.us)).toFixed(0)} µs rss ${(rssKb(off.pid!) / 1024).toFixed(0)} MB | on ${median(s('on').map((x) => x.rps)).toFixed(0)} req/s ${median(s('on').map((x) => x.us)).toFixed(0)} µs rss ${(rssKb(on.pid!) / 1024).toFixed(0)} MB | unl ${median(s('unl').map((x) => x.rps)).toFixed(0)} req/s ${median(s('unl').map((x) => x.us)).toFixed(0)} µs | on/off rps ${median(s('on').map((x, j) => x.rps / s('off')[j]!.rps)).toFixed(2)}`)
    }
  }
  await off.stop(); await on.stop(); await up.stop()
}
main().catch((e) => { console.error(e); process.exit(1) })
