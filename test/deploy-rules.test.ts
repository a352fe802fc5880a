/**
 * deploy/ checked by Prometheus's own tool: the scrape config and the alert rules pass
 * `promtool check`, `promtool test rules` proves each alert fires on a series that should fire it and
 * stays quiet on one that should not (deploy/alerts.test.yml), and a rule with a wrong threshold
 * fails those tests (so they can fail). The dashboard JSON is a plain Grafana model over a
 * Prometheus datasource variable. (That every series they name exists: apps/api/test/deploy-prometheus.test.ts.)
 */
import { execFile } from 'node:child_process'
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { programAvailable, REPO_ROOT } from '@svc/testing'
import { afterAll, describe, expect, it } from 'vitest'

const exec = promisify(execFile)
const DEPLOY = join(REPO_ROOT, 'deploy')
const hasPromtool = programAvailable('promtool', "Debian's prometheus package (scripts/setup.sh installs it)")

async function promtool(cwd: string, ...args: string[]) {
  try {
    const { stdout, stderr } = await exec('promtool', args, { cwd })
    return { code: 0, out: stdout + stderr }
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string }
    return { code: err.code, out: err.stdout + err.stderr }
  }
}

describe.skipIf(!hasPromtool)('deploy/ under promtool', () => {
  const dirs: string[] = []
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true })
  })

  it('the scrape config and the alert rules pass promtool check', async () => {
    const config = await promtool(DEPLOY, 'check', 'config', 'prometheus.yml')
    expect(config.code, config.out).toBe(0)
    expect(config.out).toContain('SUCCESS: 1 rule files found')
    const rules = await promtool(DEPLOY, 'check', 'rules', 'alerts.yml')
    expect(rules.code, rules.out).toBe(0)
    expect(rules.out).toContain('SUCCESS: 6 rules found')
  })

  it('promtool test rules: each alert fires where it should and nowhere else', async () => {
    const run = await promtool(DEPLOY, 'test', 'rules', 'alerts.test.yml')
    expect(run.code, run.out).toBe(0)
    // Every alert of the rules file has a test case.
    const rules = await readFile(join(DEPLOY, 'alerts.yml'), 'utf8')
    const tests = await readFile(join(DEPLOY, 'alerts.test.yml'), 'utf8')
    const alerts = [...rules.matchAll(/- alert: (\w+)/g)].map((m) => m[1])
    expect(alerts).toHaveLength(6)
    for (const alert of alerts) expect(tests).toContain(`alertname: ${alert}`)
  })

  it.each([
    ['SvcHigh5xxShare fires at 2 %', '> 0.05', '> 0.01'],
    [
      'SvcSlotOffline ignores the enabled flag',
      'svc_slot_enabled{on_demand="false"} == 1',
      'svc_slot_enabled >= 0',
    ],
    ['SvcMemoryBudgetNearFull fires at 80 %', '> 0.9', '> 0.7'],
    ['SvcSlotRestartLoop fires on one restart', '>= 3', '>= 1'],
  ])('the tests fail when a rule is wrong: %s', async (_, from, to) => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-deploy-'))
    dirs.push(dir)
    const rules = await readFile(join(DEPLOY, 'alerts.yml'), 'utf8')
    expect(rules).toContain(from)
    await writeFile(join(dir, 'alerts.yml'), rules.replace(from, to))
    await copyFile(join(DEPLOY, 'alerts.test.yml'), join(dir, 'alerts.test.yml'))
    const run = await promtool(dir, 'test', 'rules', 'alerts.test.yml')
    expect(run.code, run.out).not.toBe(0)
    expect(run.out).toContain('FAILED')
  })
})

interface Target {
  expr: string
  datasource: { type: string; uid: string }
}
interface Panel {
  type: string
  title: string
  datasource?: { type: string; uid: string }
  targets?: Target[]
}

/** Grafana's reference to the dashboard's datasource variable (its syntax, not a template string). */
// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax
const PICKED = { type: 'prometheus', uid: '${datasource}' }

describe('deploy/grafana-dashboard.json', () => {
  it('is a Grafana model whose every query goes to the Prometheus picked in its datasource variable', async () => {
    const dashboard = JSON.parse(await readFile(join(DEPLOY, 'grafana-dashboard.json'), 'utf8')) as {
      uid: string
      schemaVersion: number
      templating: { list: { name: string; type: string; query: unknown }[] }
      panels: Panel[]
    }
    expect(dashboard.uid).toBe('svc-overview')
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36) // Grafana 9.x/10+ model
    expect(dashboard.templating.list[0]).toMatchObject({
      name: 'datasource',
      type: 'datasource',
      query: 'prometheus',
    })
    const queried = dashboard.panels.filter((p) => p.type !== 'row')
    expect(queried.length).toBeGreaterThanOrEqual(12)
    for (const panel of queried) {
      expect(panel.datasource, panel.title).toEqual(PICKED)
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0)
      for (const t of panel.targets!) {
        expect(t.datasource, panel.title).toEqual(PICKED)
        expect(t.expr, panel.title).toMatch(/instance=~"\$instance"/)
      }
    }
    // What the issue asks the dashboard to show, each by the series it reads.
    const exprs = queried.flatMap((p) => p.targets!.map((t) => t.expr)).join('\n')
    for (const family of [
      'svc_v1_requests_total', // requests
      'svc_v1_request_duration_seconds_bucket', // latency
      'svc_upstream_ttfb_seconds_bucket', // time to first token
      'svc_tokens_total', // tokens/s
      'svc_slot_queue_depth', // queue
      'svc_slot_state', // slot states
      'svc_memory_used_bytes', // memory
      'svc_token_tokens_total', // usage by token
    ])
      expect(exprs).toContain(family)
  })
})
