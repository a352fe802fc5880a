import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { type LocalRegistry, pushTestImage, runSvc, startRegistry, tempDirs } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const svc = (args: string[]) => runSvc(args, process.env)

const started = await startRegistry()

describe.skipIf('skip' in started)('svc manifest', () => {
  const registry = started as LocalRegistry
  const dirs = tempDirs('svc-cli-manifest-')
  let dir: string
  beforeAll(async () => {
    dir = await dirs.make()
  })
  afterAll(async () => {
    await dirs.removeAll()
    await registry.stop()
  })

  const manifest = (host: string) => `# images for the test
[image.llama] # the llm
provider = "llm"
backend = "cpu"
repository = "${host}/svc-test/llama"
tag = "v1"
digest = ""  # filled by pin

[image.missing]
provider = "stt"
repository = "${host}/svc-test/missing"
tag = "v1"
digest = ""
`

  it('pins every entry it can resolve, keeps comments, and exits 1 naming the one it cannot', async () => {
    const pushed = await pushTestImage(registry.url, 'svc-test/llama', 'v1')
    const file = join(dir, 'all.toml')
    await writeFile(file, manifest(registry.host))
    const r = await svc(['manifest', 'pin', '--file', file])
    expect(r.code).toBe(1)
    expect(r.stdout).toMatch(new RegExp(`pinned\\s+llama\\s+${pushed.digest}`))
    expect(r.stdout).toContain(`wrote ${file} (1 digest changed)`)
    expect(r.stderr).toMatch(
      /failed\s+missing\s+.*svc-test\/missing\/manifests\/v1: no such tag or repository/,
    )
    expect(await readFile(file, 'utf8')).toBe(
      manifest(registry.host).replace('digest = ""  # filled', `digest = "${pushed.digest}"  # filled`),
    )

    const ls = await svc(['manifest', 'ls', `--file=${file}`])
    expect(ls.code).toBe(0)
    expect(ls.stdout).toMatch(/llama\s+llm\/cpu\s+sha256:/)
    expect(ls.stdout).toMatch(/missing\s+stt\/-\s+NOT PINNED/)
  })

  it('pins only the named entries and exits 0 when they all resolve', async () => {
    await pushTestImage(registry.url, 'svc-test/llama', 'v1')
    const file = join(dir, 'named.toml')
    await writeFile(file, manifest(registry.host))
    const r = await svc(['manifest', 'pin', 'llama', '--file', file])
    expect(r.code).toBe(0)
    expect(r.stderr).toBe('')
    expect(await readFile(file, 'utf8')).toContain('[image.missing]\nprovider = "stt"')
  })

  it('explains its usage', async () => {
    const r = await svc(['manifest', 'frob'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('unknown subcommand "manifest frob"')
    expect((await svc(['--help'])).stdout).toMatch(/manifest\s+pin container images by digest/)
  })
})
