/**
 * The real Prometheus (Debian's `prometheus` package) for tests: run on deploy/prometheus.yml pointed
 * at a test's API, and what deploy/'s dashboard and rules name, read out of their queries.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { REPO_ROOT, spawnWatched, testEnv, type WatchedChild } from '@svc/testing'

export const DEPLOY = join(REPO_ROOT, 'deploy')

export interface RunningPrometheus extends AsyncDisposable {
  url: string
  prometheus: WatchedChild
  /** An instant query through `/api/v1/query`; throws with Prometheus's error on a failed one. */
  query(expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>
  /** `GET /api/v1/<path>`'s `data`. */
  get<T>(path: string): Promise<T>
}

/** A free TCP port on 127.0.0.1 (Prometheus takes no port 0). */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

/**
 * deploy/prometheus.yml as shipped, with only its target moved to `target` (host:port), its intervals
 * to 1 s and its rule file named by absolute path; throws when one of those lines is not in the file.
 */
export async function deployConfig(target: string): Promise<string> {
  let text = await readFile(join(DEPLOY, 'prometheus.yml'), 'utf8')
  const swaps: [string, string][] = [
    ['targets: ["localhost:8080"]', `targets: ["${target}"]`],
    ['scrape_interval: 15s', 'scrape_interval: 1s'],
    ['evaluation_interval: 15s', 'evaluation_interval: 1s'],
    ['  - alerts.yml', `  - ${join(DEPLOY, 'alerts.yml')}`],
  ]
  for (const [from, to] of swaps) {
    if (!text.includes(from)) throw new Error(`deploy/prometheus.yml has no "${from}"`)
    text = text.replace(from, to)
  }
  return text
}

/**
 * Runs `prometheus` on `config` (written into `dir`, with its TSDB there) on 127.0.0.1 and a free
 * port, and resolves once it is ready. Dispose stops it (SIGTERM, then SIGKILL after 5 s).
 */
export async function runPrometheus(config: string, dir: string): Promise<RunningPrometheus> {
  const file = join(dir, 'prometheus.yml')
  await writeFile(file, config)
  const port = await freePort()
  const prometheus = spawnWatched(
    'prometheus',
    [
      `--config.file=${file}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { env: { PATH: testEnv.path, HOME: dir } },
  )
  await prometheus.waitFor(/(Server is ready to receive web requests)/, {
    what: 'prometheus',
    timeoutMs: 30_000,
  })
  const url = `http://127.0.0.1:${port}`
  const get = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${url}/api/v1/${path}`)
    const body = (await res.json()) as { status: string; data: T; error?: string }
    if (body.status !== 'success') throw new Error(`prometheus ${path}: ${body.error ?? res.status}`)
    return body.data
  }
  return {
    url,
    prometheus,
    get,
    query: async (expr) =>
      (
        await get<{ result: { metric: Record<string, string>; value: [number, string] }[] }>(
          `query?query=${encodeURIComponent(expr)}`,
        )
      ).result,
    [Symbol.asyncDispose]: async () => void (await prometheus.stop('SIGTERM', 5_000)),
  }
}

/** Families of the names the exposition's samples may carry (a histogram's `_bucket`, `_sum`, `_count`). */
export function familyOf(name: string, families: ReadonlySet<string>): string | undefined {
  if (families.has(name)) return name
  const base = name.replace(/_(bucket|sum|count)$/, '')
  return families.has(base) ? base : undefined
}

/**
 * Every metric family (`# TYPE` line) in a Prometheus text exposition, with the label names its
 * samples carry.
 */
export function exposedFamilies(text: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>()
  for (const m of text.matchAll(/^# TYPE (\S+) \S+$/gm)) out.set(m[1]!, new Set())
  const names = new Set(out.keys())
  for (const m of text.matchAll(/^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? \S+/gm)) {
    const family = familyOf(m[1]!, names)
    if (!family) continue
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="/g)) out.get(family)!.add(l[1]!)
  }
  return out
}

/** The metric names a PromQL query reads (svc's, the Node process's), with the label names it matches on each. */
export function namesInQuery(expr: string): { name: string; labels: string[] }[] {
  const out: { name: string; labels: string[] }[] = []
  for (const m of expr.matchAll(/\b((?:svc|process|nodejs)_[a-zA-Z0-9_]*)(\{[^}]*\})?/g)) {
    const labels = [...(m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)/g)].map((l) => l[1]!)
    out.push({ name: m[1]!, labels })
  }
  return out
}

/** The label names a query groups by (`by (a, b)`). */
export function groupLabels(expr: string): string[] {
  return [...expr.matchAll(/\bby\s*\(([^)]*)\)/g)].flatMap((m) =>
    m[1]!
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  )
}

/** Grafana's variables in a dashboard query, replaced the way Grafana would for an instant query. */
export function withGrafanaVariables(expr: string): string {
  return expr.replaceAll('$instance', '.*').replaceAll('$__rate_interval', '1m').replaceAll('$__range', '1h')
}
