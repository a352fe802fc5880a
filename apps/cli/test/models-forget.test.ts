import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { buildTinyGguf, runSvc, startApi, tempDirs } from '@svc/testing'
import { afterEach, describe, expect, it } from 'vitest'

const dirs = tempDirs('svc-cli-forget-')
afterEach(() => dirs.removeAll())

const svc = (args: string[], env: Record<string, string>) => runSvc(args, { ...process.env, ...env })

describe('svc models forget', () => {
  it('forgets a local ref through the API and leaves the file; refuses a curated id', async () => {
    const stateDir = await dirs.make()
    const path = join(stateDir, 'my-model.gguf')
    const bytes = buildTinyGguf({ role: 'chat' }).bytes
    await writeFile(path, bytes)
    // What a load by path leaves behind: a local ref in the registry.
    await mkdir(join(stateDir, 'models'), { recursive: true })
    const entry = {
      id: 'my-model',
      format: 'gguf',
      provider: 'llm',
      source: 'local',
      path,
      size: bytes.length,
    }
    await writeFile(join(stateDir, 'models', 'registry.json'), JSON.stringify({ models: [entry] }))
    await using api = await startApi({ stateDir })
    const env = { SVC_API_URL: api.url }
    expect((await svc(['models', 'ls'], env)).stdout).toMatch(/^my-model\s+llm/m)

    const forgot = await svc(['models', 'forget', 'my-model'], env)
    expect(forgot.code, forgot.stderr).toBe(0)
    expect(forgot.stdout).toBe('forgot my-model\n')
    expect((await svc(['models', 'ls'], env)).stdout).not.toContain('my-model')
    expect(await readFile(path)).toEqual(bytes)

    const curated = await svc(['models', 'forget', 'qwen3-0.6b-q8_0'], env)
    expect(curated.code).toBe(1)
    expect(curated.stderr).toContain('curated')
    expect((await svc(['models', 'forget'], env)).code).toBe(2)
  })
})
