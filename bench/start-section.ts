/**
 * Start-up and idle memory: `pnpm start` as a user runs it (both servers from the build, in the
 * background), timed from the command to its return — it returns once both listen — and the RSS of
 * every process svc then keeps running, idle, with no slot loaded. BENCH_START_ROUNDS rounds (default
 * 3), each in fresh config/state dirs on free loopback ports, stopped with `pnpm stop`.
 */
import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ensureBuilt, loopbackEnv, REPO_ROOT } from '@svc/testing'
import { type Goal, goalTable, type SectionResult } from './goals'
import { commandLine, processTree, pssKb, rssKb, rssSplitKb } from './rss'
import { fmt, median } from './stats'

const ROUNDS = Number(process.env.BENCH_START_ROUNDS ?? 3)
const IDLE_MS = 3000

interface Round {
  /** `pnpm start` → it returned with both servers listening (ms). */
  wallMs: number
  /** Each server's own spawn → listening, as `svc start` reports it (ms). */
  apiMs: number
  chatMs: number
  /** RSS of everything left running (KiB) and what it is. */
  rssKb: number
  /** PSS of the same processes (KiB): shared pages counted once, for reference. */
  pssKb: number
  /** Per process: its command line and RSS split. */
  processes: string[]
  split: { anon: number; file: number; pss: number }[]
}

export async function startSection(log: (line: string) => void): Promise<SectionResult> {
  await ensureBuilt('api', 'chat', 'cli')
  const rounds: Round[] = []
  for (let round = 1; round <= ROUNDS; round++) {
    const r = await oneStart()
    rounds.push(r)
    log(
      `start round ${round}/${ROUNDS}: pnpm start returned after ${fmt(r.wallMs)} ms (API listening after ${fmt(r.apiMs)} ms, chat ${fmt(r.chatMs)} ms); idle RSS ${fmt(r.rssKb / 1024, 1)} MiB (PSS ${fmt(r.pssKb / 1024, 1)} MiB) in ${r.processes.length} processes`,
    )
  }
  const wall = median(rounds.map((r) => r.wallMs))
  const api = median(rounds.map((r) => r.apiMs))
  const rss = median(rounds.map((r) => r.rssKb)) / 1024
  const pss = median(rounds.map((r) => r.pssKb)) / 1024
  const tooling = rounds.flatMap((r) => r.processes).filter((cmd) => /pnpm|tsx/.test(cmd))
  const goals: Goal[] = [
    {
      measure: 'start to listening (the API, as svc start reports it)',
      value: `${fmt(api)} ms`,
      goal: '≤ 1 s',
      met: api <= 1000,
    },
    {
      measure: 'idle RSS of everything svc keeps running (no slots loaded)',
      value: `${fmt(rss, 1)} MiB`,
      goal: '≤ 120 MB',
      met: rss * 1.048576 <= 120,
    },
    {
      measure: 'pnpm or tsx processes left running',
      value: String(tooling.length),
      goal: '0',
      met: tooling.length === 0,
    },
  ]
  const markdown = [
    '## Start-up and idle memory: `pnpm start`',
    '',
    `Median of ${ROUNDS} rounds, each in fresh config/state dirs; RSS read ${IDLE_MS / 1000} s after \`pnpm start\` returned.`,
    '',
    '| measure | median | every round |',
    '|---|---|---|',
    `| \`pnpm start\` until it returns (both listening; includes pnpm's own start) ms | ${fmt(wall)} | ${rounds.map((r) => fmt(r.wallMs)).join(', ')} |`,
    `| the API: spawn → listening ms | ${fmt(api)} | ${rounds.map((r) => fmt(r.apiMs)).join(', ')} |`,
    `| the chat app: spawn → listening ms | ${fmt(median(rounds.map((r) => r.chatMs)))} | ${rounds.map((r) => fmt(r.chatMs)).join(', ')} |`,
    `| RSS of all svc processes at idle MiB (the goal's measure) | ${fmt(rss, 1)} | ${rounds.map((r) => fmt(r.rssKb / 1024, 1)).join(', ')} |`,
    `| for reference, no goal: PSS of the same processes MiB (each shared page, such as the node binary's, split among all processes mapping it, other node programs on this machine included) | ${fmt(pss, 1)} | ${rounds.map((r) => fmt(r.pssKb / 1024, 1)).join(', ')} |`,
    '',
    "Left running (first round), RSS split into the process's own memory (anon: heap, JIT code) and mapped files (mostly the node binary, the same pages in both processes):",
    '',
    '| process | RSS MiB | anon MiB | mapped files MiB | PSS MiB (for reference) |',
    '|---|---|---|---|---|',
    ...(rounds[0]?.processes ?? []).map((p, i) => {
      const split = rounds[0]!.split[i]!
      return `| \`${p.replace(REPO_ROOT.replace(/\/?$/, '/'), './')}\` | ${fmt((split.anon + split.file) / 1024, 1)} | ${fmt(split.anon / 1024, 1)} | ${fmt(split.file / 1024, 1)} | ${fmt(split.pss / 1024, 1)} |`
    }),
    '',
    ...goalTable(goals),
    '',
  ].join('\n')
  return { markdown, goals }
}

async function oneStart(): Promise<Round> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-start-'))
  const env = { ...process.env, ...loopbackEnv(dir) }
  try {
    const began = performance.now()
    const out = await run('pnpm', ['start'], env)
    const wallMs = performance.now() - began
    const server = (name: string) => {
      const m = new RegExp(`${name}\\s+http://\\S+\\s+\\(pid (\\d+), listening after ([\\d.]+) s`).exec(out)
      if (!m) throw new Error(`pnpm start printed no ${name} line:\n${out}`)
      return { pid: Number(m[1]), ms: Number(m[2]) * 1000 }
    }
    const api = server('API')
    const chat = server('chat')
    try {
      await new Promise((r) => setTimeout(r, IDLE_MS))
      const pids = [...processTree(api.pid), ...processTree(chat.pid)]
      return {
        wallMs,
        apiMs: api.ms,
        chatMs: chat.ms,
        rssKb: pids.reduce((sum, pid) => sum + rssKb(pid), 0),
        pssKb: pids.reduce((sum, pid) => sum + pssKb(pid), 0),
        processes: pids.map(commandLine),
        split: pids.map((pid) => ({ ...rssSplitKb(pid), pss: pssKb(pid) })),
      }
    } finally {
      await run('pnpm', ['stop'], env)
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { cwd: REPO_ROOT, env, timeout: 120_000 }, (error, stdout, stderr) =>
      error
        ? reject(new Error(`${cmd} ${args.join(' ')}: ${error.message}\n${stdout}${stderr}`))
        : resolve(stdout + stderr),
    )
  })
}
