/**
 * Metrics of the inference hot path, kept in plain maps and rendered as Prometheus text at scrape
 * time. prom-client validates and hashes the label set on every `inc`/`observe` (even through
 * `labels()` children); at thousands of requests per second that was a visible share of svc's own
 * cost. Here an observation is one Map lookup per label value (nested maps: no key string is built
 * per observation, and label values are mostly the same strings, whose hashes V8 keeps) plus a few
 * additions.
 */

interface Series {
  labels: readonly string[]
  value: number
  sum: number
  buckets: Float64Array | undefined
}

interface Family {
  name: string
  help: string
  type: 'counter' | 'histogram'
  labelNames: readonly string[]
  bounds: readonly number[]
  /** Label value → (next label value → …) → series. */
  tree: Map<string, unknown>
  /** Every series, in the order first seen (the exposition's order). */
  series: Series[]
}

export interface HotCounter {
  /** Adds `value` (default 1) to the series with these label values (in `labelNames` order). */
  add(labels: readonly string[], value?: number): void
  /** The series with these label values, looked up once: for a caller that adds to it on every request. */
  at(labels: readonly string[]): { add(value?: number): void }
}

export interface HotHistogram {
  observe(labels: readonly string[], value: number): void
}

export interface HotMetrics {
  counter(name: string, help: string, labelNames: readonly string[]): HotCounter
  histogram(
    name: string,
    help: string,
    labelNames: readonly string[],
    bounds: readonly number[],
  ): HotHistogram
  /** Prometheus text exposition (format 0.0.4) of every family. */
  render(): string
}

export function createHotMetrics(): HotMetrics {
  const families: Family[] = []
  const seriesOf = (family: Family, labels: readonly string[]): Series => {
    let node = family.tree
    const last = labels.length - 1
    for (let i = 0; i < last; i++) {
      let next = node.get(labels[i]!) as Map<string, unknown> | undefined
      if (!next) {
        next = new Map()
        node.set(labels[i]!, next)
      }
      node = next
    }
    let s = node.get(labels[last]!) as Series | undefined
    if (!s) {
      s = {
        labels: [...labels],
        value: 0,
        sum: 0,
        buckets: family.type === 'histogram' ? new Float64Array(family.bounds.length) : undefined,
      }
      node.set(labels[last]!, s)
      family.series.push(s)
    }
    return s
  }
  const family = (spec: Omit<Family, 'series' | 'tree'>) => {
    const f: Family = { ...spec, tree: new Map(), series: [] }
    families.push(f)
    return f
  }
  return {
    counter(name, help, labelNames) {
      const f = family({ name, help, type: 'counter', labelNames, bounds: [] })
      return {
        add(labels, value = 1) {
          seriesOf(f, labels).value += value
        },
        at(labels) {
          const s = seriesOf(f, labels)
          return {
            add(value = 1) {
              s.value += value
            },
          }
        },
      }
    },
    histogram(name, help, labelNames, bounds) {
      const f = family({ name, help, type: 'histogram', labelNames, bounds })
      return {
        observe(labels, value) {
          const s = seriesOf(f, labels)
          s.value += 1
          s.sum += value
          const b = s.buckets!
          for (let i = 0; i < bounds.length; i++) {
            if (value <= bounds[i]!) {
              b[i]! += 1
              break
            }
          }
        },
      }
    },
    render() {
      const out: string[] = []
      for (const f of families) {
        out.push(
          `# HELP ${f.name} ${f.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`,
          `# TYPE ${f.name} ${f.type}`,
        )
        for (const s of f.series) {
          const labels = f.labelNames.map((n, i) => `${n}="${escapeLabel(s.labels[i] ?? '')}"`)
          if (f.type === 'counter') {
            out.push(`${f.name}{${labels.join(',')}} ${s.value}`)
            continue
          }
          let cumulative = 0
          f.bounds.forEach((bound, i) => {
            cumulative += s.buckets![i]!
            out.push(`${f.name}_bucket{${[...labels, `le="${bound}"`].join(',')}} ${cumulative}`)
          })
          out.push(`${f.name}_bucket{${[...labels, 'le="+Inf"'].join(',')}} ${s.value}`)
          out.push(
            `${f.name}_sum{${labels.join(',')}} ${s.sum}`,
            `${f.name}_count{${labels.join(',')}} ${s.value}`,
          )
        }
      }
      return out.length > 0 ? `${out.join('\n')}\n` : ''
    },
  }
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')
}
