/** The goals the bench measures svc against, and the markdown table they are reported in. */

/** One goal: what was measured, its value in this run, the target, and whether it was met. */
export interface Goal {
  measure: string
  value: string
  goal: string
  /** `undefined`: not measured in this run (e.g. a part was missing). */
  met: boolean | undefined
}

/** What a section of the bench returns: its part of the report and its goals. */
export interface SectionResult {
  markdown: string
  goals: Goal[]
}

/** Whether a measured value meets its goal, for the goal tables. */
export function verdict(ok: boolean | undefined): string {
  return ok === undefined ? '—' : ok ? 'met' : '**not met**'
}

/** The lines of the markdown table of `goals`: its header, then a row per goal. */
export function goalTable(goals: readonly Goal[]): string[] {
  return [
    '| goal | value | target | |',
    '|---|---|---|---|',
    ...goals.map((g) => `| ${g.measure} | ${g.value} | ${g.goal} | ${verdict(g.met)} |`),
  ]
}
