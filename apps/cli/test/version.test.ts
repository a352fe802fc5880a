import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { runSvc, startApi } from '@svc/testing'
import { describe, expect, it } from 'vitest'

const root = new URL('../../../', import.meta.url).pathname
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir)) {
    const full = join(dir, entry)
    if (statSync(full).isDirectory()) yield* sources(full)
    else if (/\.tsx?$/.test(entry) && !/\.test\.tsx?$/.test(entry)) yield full
  }
}

describe("svc's version", () => {
  it('is the root package.json version in `svc --version` and in the API', async () => {
    const r = await runSvc(['--version'], process.env)
    expect(r.stdout).toBe(`svc ${version}\n`)
    await using api = await startApi()
    const status = (await (await fetch(`${api.url}/api/status`)).json()) as { version: string }
    expect(status.version).toBe(version)
  })

  it('is written in no app source (one source: @svc/core/node SVC_VERSION)', () => {
    const literal = new RegExp(`(?<![\\d.])${version.replaceAll('.', '\\.')}(?![\\d.])`)
    const written: string[] = []
    for (const app of ['api', 'chat', 'cli', 'dashboard']) {
      for (const file of sources(join(root, 'apps', app, 'src'))) {
        if (literal.test(readFileSync(file, 'utf8'))) written.push(file.slice(root.length))
      }
    }
    expect(written).toEqual([])
  })
})
