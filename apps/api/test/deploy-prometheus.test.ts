/**
 * deploy/ against the real thing: the API (a child process, auth on) with a real llama-server in its
 * `primary` slot, scraped by the real Prometheus running deploy/prometheus.yml and deploy/alerts.yml.
 * Every series the Grafana dashboard and the alert rules name is in a live `/api/metrics` (with the
 * labels they match on), Prometheus has scraped each of them, every dashboard query runs, and every
 * rule evaluates without error.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { QuotaLimits, Scope } from '@svc/auth'
import { type ApiProcess, programAvailable, startApi, writeSvcConfig, writeTinyGguf } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mintToken } from './auth-harness'
import { call, llamaServerAvailable } from './live'
import {
  DEPLOY,
  deployConfig,
  exposedFamilies,
  familyOf,
  groupLabels,
  namesInQuery,
  type RunningPrometheus,
  runPrometheus,
  withGrafanaVariables,
} from './prometheus'

const available =
  llamaServerAvailable() &&
  programAvailable('prometheus', "Debian's prometheus package (scripts/setup.sh installs it)")
/** Labels Prometheus adds to every scraped series, and histograms' bucket bound. */
const ADDED = new Set(['instance', 'job', 'le'])
const GIB = 1024 ** 3

describe.skipIf(!available)('deploy/ with the real Prometheus, svc and llama-server', () => {
  let dir: string
  let api: ApiProcess | undefined
  let prometheus: RunningPrometheus | undefined
  let admin: string
  let limited: { id: string; token: string }
  let dashboardQueries: string[]
  let ruleQueries: string[]

  const mint = (label: string, scope: Scope, limits?: QuotaLimits) =>
    mintToken(join(dir, 'config'), { label, scope, ...(limits ? { limits } : {}) })
  const chat = (token: string, stream = false) =>
    call(api!, '/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      json: { model: 'primary', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 3, stream },
    })
  const metricsText = async () => (await fetch(`${api!.url}/api/metrics`)).text()

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-deploy-'))
    const gguf = (await writeTinyGguf(join(dir, 'tiny-chat.gguf'), { role: 'chat' })).path
    await writeSvcConfig(join(dir, 'config'), {
      slots: {
        primary: `enabled = true\nbackend = "cpu"\nruntime = "process"\nrestart = "no"\nmax_queue = 4\nargs = ["-c", "256", "-np", "1", "--threads", "1"]\n[model]\ndefault = "${gguf}"\n`,
      },
    })
    admin = (await mint('admin', 'admin')).token
    limited = await mint('limited', 'v1-only', { requests_per_minute: 1 })
    api = await startApi({
      configDir: join(dir, 'config'),
      stateDir: join(dir, 'state'),
      env: { SVC_AUTH_ENABLED: '1', SVC_MEMORY_BUDGET_GB: '64' },
    })
    const load = await call(api, '/api/slots/primary/load?wait=true', {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}` },
      json: { model: gguf },
    })
    expect(load.status, JSON.stringify(load.body)).toBe(200)
    // Traffic for every panel: answers (streamed: a time to first token), and a quota refusal.
    expect((await chat(admin)).status).toBe(200)
    expect((await chat(admin, true)).status).toBe(200)
    expect((await chat(limited.token)).status).toBe(200)
    expect((await chat(limited.token)).status).toBe(429)

    const dashboard = JSON.parse(await readFile(join(DEPLOY, 'grafana-dashboard.json'), 'utf8')) as {
      panels: { targets?: { expr: string }[] }[]
    }
    dashboardQueries = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr))
    prometheus = await runPrometheus(await deployConfig(new URL(api.url).host), dir)
    const rules = await prometheus.get<{ groups: { rules: { name: string; query: string }[] }[] }>(
      'rules?type=alert',
    )
    ruleQueries = rules.groups.flatMap((g) => g.rules.map((r) => r.query))
  }, 120_000)

  afterAll(async () => {
    await prometheus?.[Symbol.asyncDispose]()
    await api?.[Symbol.asyncDispose]()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('/api/metrics carries what the alert rules need, with the values of this setup', async () => {
    const text = await metricsText()
    const line = (re: RegExp) => text.match(re)?.[1]
    expect(line(/^svc_slot_enabled\{slot="primary",on_demand="false"\} (\S+)$/m)).toBe('1')
    expect(line(/^svc_slot_queue_max\{slot="primary"\} (\S+)$/m)).toBe('4')
    expect(line(/^svc_slot_restarts_total\{slot="primary"\} (\S+)$/m)).toBe('0')
    expect(Number(line(/^svc_memory_budget_bytes\{device="[^"]+"\} (\S+)$/m))).toBe(64 * GIB)
    // The loaded model is charged to the device.
    expect(Number(line(/^svc_memory_used_bytes\{device="[^"]+"\} (\S+)$/m))).toBeGreaterThan(0)
    expect(
      line(
        new RegExp(
          `^svc_quota_refusals_total\\{token="${limited.id}",limit="requests_per_minute"\\} (\\S+)$`,
          'm',
        ),
      ),
    ).toBe('1')
  })

  it('every series the dashboard and the rules name is in a live /api/metrics, with the labels they use', async () => {
    const families = exposedFamilies(await metricsText())
    const names = new Set(families.keys())
    expect(ruleQueries).toHaveLength(6)
    for (const expr of [...dashboardQueries, ...ruleQueries]) {
      const named = namesInQuery(expr)
      expect(named.length, expr).toBeGreaterThan(0)
      const labelsOfQuery = new Set(ADDED)
      for (const { name, labels } of named) {
        const family = familyOf(name, names)
        expect(family, `${name} in ${expr}`).toBeDefined()
        const known = families.get(family!)!
        for (const l of known) labelsOfQuery.add(l)
        for (const l of labels)
          expect(ADDED.has(l) || known.has(l), `label ${l} of ${name} in ${expr}`).toBe(true)
      }
      for (const l of groupLabels(expr)) expect(labelsOfQuery.has(l), `by (${l}) in ${expr}`).toBe(true)
    }
  })

  it('the real Prometheus scrapes svc and answers every dashboard query; every rule evaluates', async () => {
    const p = prometheus!
    // Two scrapes at least, so rate() has two points.
    const deadline = Date.now() + 30_000
    for (;;) {
      const scrapes = await p.query('count_over_time(up{job="svc"}[1m])')
      const up = await p.query('up{job="svc"}')
      if (up[0]?.value[1] === '1' && Number(scrapes[0]?.value[1] ?? 0) >= 3) break
      if (Date.now() > deadline) throw new Error(`no scrapes of svc:\n${p.prometheus.output()}`)
      await new Promise((r) => setTimeout(r, 500))
    }
    // Every series the dashboard reads has been scraped.
    const scraped = new Set(
      (await p.query('count by (__name__) ({job="svc"})')).map((r) => r.metric.__name__!),
    )
    for (const expr of dashboardQueries)
      for (const { name } of namesInQuery(expr)) expect(scraped.has(name), `${name} scraped`).toBe(true)
    // Every query runs, and those over this traffic have values.
    for (const expr of dashboardQueries) await p.query(withGrafanaVariables(expr))
    const requests = await p.query(withGrafanaVariables(dashboardQueries[0]!))
    expect(requests.map((r) => r.metric.route)).toContain('/v1/chat/completions')
    const states = await p.query('svc_slot_state{slot="primary"} == 1')
    expect(states.map((r) => r.metric.state)).toEqual(['idle'])
    const tokens = await p.query('sum by (token) (svc_token_requests_total)')
    expect(tokens.map((r) => r.metric.token)).toContain(limited.id)
    // The rules evaluate against the live series (a query error shows as health "err").
    const evaluated = Date.now() + 15_000
    for (;;) {
      const { groups } = await p.get<{
        groups: { rules: { name: string; health: string; lastError?: string }[] }[]
      }>('rules')
      const rules = groups.flatMap((g) => g.rules)
      for (const r of rules) expect(r.health, `${r.name}: ${r.lastError}`).not.toBe('err')
      if (rules.every((r) => r.health === 'ok')) break
      if (Date.now() > evaluated) throw new Error(`rules not evaluated: ${JSON.stringify(rules)}`)
      await new Promise((r) => setTimeout(r, 500))
    }
    // The token over its quota is an alert at once; no other alert fires on this healthy setup.
    const { alerts } = await p.get<{ alerts: { labels: Record<string, string>; state: string }[] }>('alerts')
    expect(alerts.map((a) => [a.labels.alertname, a.labels.token])).toEqual([
      ['SvcTokenOverQuota', limited.id],
    ])
  }, 90_000)
})
