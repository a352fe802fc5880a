/**
 * README.md as a newcomer follows it, so it cannot drift from what works: under 200 lines, its first
 * block exactly the two commands (setup + start, setup + test), and its quick start run as written —
 * `pnpm start`, then every command of the quick start's shell block and its `openai` snippet — against
 * the real svc and a real llama-server, with no internet (HF_ENDPOINT points at a closed port). Only
 * the GGUF path (a tiny random-weight GGUF from @svc/testing) and the port (the API's, read from the
 * start banner; the CLI gets it as SVC_API_URL) are substituted.
 */
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseSlotConfig } from '@svc/core'
import {
  BUILT_ENTRIES,
  ensureBuilt,
  loopbackEnv,
  missingPart,
  REPO_ROOT,
  requireLlamaServer,
  writeTinyGguf,
} from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const README = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')

/** The fenced blocks of `lang` in `markdown`, in order. */
function blocks(markdown: string, lang: string): string[] {
  return [...markdown.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((m) => m[1]!)
}

/** The text of the `## <title>` section, up to the next `## ` heading. */
function section(markdown: string, title: string): string {
  const start = markdown.indexOf(`\n## ${title}\n`)
  if (start < 0) throw new Error(`README.md has no "## ${title}" section`)
  const end = markdown.indexOf('\n## ', start + 1)
  return markdown.slice(start, end < 0 ? undefined : end)
}

/** A shell block's commands: continuation lines joined, comment-only and empty lines dropped. */
function commands(block: string): string[] {
  return block
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
}

describe('README.md', () => {
  it('stays under 200 lines and opens with exactly the two commands: setup + start, setup + test', () => {
    expect(README.split('\n').length).toBeLessThan(200)
    const first = commands(blocks(README, 'bash')[0] ?? '')
    expect(first.map((c) => c.replace(/\s+#.*$/, ''))).toEqual([
      './scripts/setup.sh && pnpm start',
      './scripts/setup.sh && pnpm test',
    ])
    expect(README.slice(0, README.indexOf('## Quick start'))).toContain('`pnpm stop`')
  })

  it('shows a slot file svc accepts as written', () => {
    const [toml] = blocks(section(README, 'A slot file'), 'toml')
    const parsed = parseSlotConfig('primary', toml ?? '')
    expect(parsed.ok, JSON.stringify(parsed)).toBe(true)
  })
})

const llamaServer = requireLlamaServer()
const pnpmHere = await new Promise<boolean>((resolve) =>
  execFile('pnpm', ['--version'], (error) => resolve(!error)),
)
if (!pnpmHere) missingPart('pnpm', 'run ./scripts/setup.sh (it installs pnpm)')

describe.skipIf(!llamaServer || !pnpmHere)('README.md’s quick start, offline, on a local GGUF', () => {
  let dir: string
  let env: NodeJS.ProcessEnv

  beforeAll(async () => {
    await ensureBuilt('api', 'chat', 'cli')
    dir = await mkdtemp(join(tmpdir(), 'svc-readme-'))
    // `svc` on PATH as ./scripts/setup.sh links it: the built CLI.
    await mkdir(join(dir, 'bin'))
    await symlink(BUILT_ENTRIES.cli, join(dir, 'bin', 'svc'))
    // The slot small for a 2-core machine (a slot file, not a change to the commands).
    await mkdir(join(dir, 'config', 'slots'), { recursive: true })
    await writeFile(
      join(dir, 'config', 'slots', 'primary.toml'),
      'args = ["-c", "256", "-np", "1", "--threads", "1"]\n',
    )
    const { SVC_API_URL: _u, SVC_TOKEN: _t, SVC_AUTH: _a, HF_TOKEN: _h, ...inherited } = process.env
    env = {
      ...inherited,
      ...loopbackEnv(dir),
      PATH: `${join(dir, 'bin')}:${process.env.PATH}`,
      // No Hub: a load that tried to download would fail at once.
      HF_ENDPOINT: 'http://127.0.0.1:9',
    }
  }, 120_000)

  afterAll(async () => {
    if (!dir) return
    await sh('pnpm stop', REPO_ROOT)
    await rm(dir, { recursive: true, force: true })
  })

  function sh(command: string, cwd = dir) {
    return new Promise<{ code: number; out: string; stdout: string }>((resolve) => {
      execFile('bash', ['-c', command], { cwd, env, timeout: 90_000 }, (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0
        resolve({ code, out: `$ ${command}\n${stdout}${stderr}`, stdout })
      })
    })
  }

  it('pnpm start, then every command of the quick start answers as README.md says', async () => {
    await mkdir(join(dir, 'models'))
    const gguf = await writeTinyGguf(join(dir, 'models', 'tiny-chat.gguf'), { role: 'chat' })

    const start = commands(blocks(README, 'bash')[0]!)[0]!
      .replace(/^.*&&\s*/, '')
      .replace(/\s+#.*$/, '')
    expect(start).toBe('pnpm start')
    const started = await sh(start, REPO_ROOT)
    expect(started.code, started.out).toBe(0)
    const port = /Dashboard and API\s+http:\/\/localhost:(\d+)\//.exec(started.out)?.[1]
    expect(port, started.out).toBeDefined()
    env.SVC_API_URL = `http://127.0.0.1:${port}`

    const quick = section(README, 'Quick start')
    const [shell, ...more] = blocks(quick, 'bash')
    expect(more, 'one shell block in the quick start').toEqual([])
    const paths = new Set(shell!.match(/\S+\.gguf\b/g))
    expect([...paths], 'the quick start loads one local .gguf by path').toHaveLength(1)
    const [readmePath] = paths
    const run = commands(shell!).map((c) =>
      c.replaceAll(readmePath!, gguf.path).replaceAll('localhost:8080', `localhost:${port}`),
    )
    expect(run.some((c) => /^svc slot load primary --model \S+\.gguf/.test(c))).toBe(true)
    expect(run.some((c) => c.startsWith('curl '))).toBe(true)

    for (const command of run) {
      const r = await sh(command)
      expect(r.code, r.out).toBe(0)
      if (command.startsWith('svc slot load ')) expect(r.out).toMatch(/primary is ready with tiny-chat/)
      if (command.startsWith('svc slot ls')) expect(r.out).toMatch(/^primary\b.*\b(ready|idle)\b.*tiny-chat/m)
      if (command.startsWith('curl ')) {
        const answer = JSON.parse(r.stdout) as { choices?: { message: { content: string } }[] }
        expect(typeof answer.choices?.[0]?.message.content, r.out).toBe('string')
      }
    }

    // The client snippet, as written, with the openai package the API's tests use.
    const [snippet] = blocks(quick, 'js')
    expect(snippet, 'the quick start has the openai snippet').toBeDefined()
    const client = join(dir, 'client')
    const openai = await realpath(join(REPO_ROOT, 'apps/api/node_modules/openai'))
    await mkdir(join(client, 'node_modules'), { recursive: true })
    await symlink(openai, join(client, 'node_modules', 'openai'))
    await writeFile(
      join(client, 'quickstart.mjs'),
      snippet!.replaceAll('localhost:8080', `localhost:${port}`),
    )
    const answer = await sh('node quickstart.mjs', client)
    expect(answer.code, answer.out).toBe(0)
    expect(answer.stdout.trim(), answer.out).not.toBe('')
  }, 180_000)
})
