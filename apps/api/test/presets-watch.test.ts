/**
 * The presets file watched on a real directory: an edit applies, a broken one keeps the last good
 * presets and says why, a removed file means no presets.
 */
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createLogger } from '@svc/core/node'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type PresetsWatcher, watchPresets } from '../src/slots/presets-watch'

async function until(check: () => void, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      check()
      return
    } catch (error) {
      if (Date.now() > deadline) throw error
      await new Promise((r) => setTimeout(r, 25))
    }
  }
}

describe('the presets watcher', () => {
  let dir: string
  let watcher: PresetsWatcher
  const lines: string[] = []

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-presets-'))
    await writeFile(
      join(dir, 'presets.toml'),
      '[presets.fast]\nmodel = "known"\nforce = { max_tokens = 3 }\n',
    )
    watcher = await watchPresets({
      configDir: dir,
      logger: createLogger({ level: 'info', write: (line) => lines.push(line) }),
      knows: async (model) => model === 'known',
      debounceMs: 10,
    })
  })
  afterEach(async () => {
    watcher.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('reads the file at start', () => {
    expect(watcher.table.resolveAlias('fast')).toBe('known')
    expect(watcher.problem).toBeNull()
  })

  it('applies an edit renamed over the file, as editors save', async () => {
    const temp = join(dir, '.presets.toml.swp')
    await writeFile(temp, '[presets.slow]\nmodel = "known"\n')
    await rename(temp, join(dir, 'presets.toml'))
    await until(() => expect(watcher.table.has('slow')).toBe(true))
    expect(watcher.table.has('fast')).toBe(false)
  })

  it('keeps the last good presets when an edit is broken, and says why until it is fixed', async () => {
    await writeFile(join(dir, 'presets.toml'), '[presets.fast]\nmodel = "known"\nstrip = "logit_bias"\n')
    await until(() => expect(watcher.problem).not.toBeNull())
    expect(watcher.problem).toBe(
      `${join(dir, 'presets.toml')}: preset "fast": strip: expected a list of field names, got "logit_bias"`,
    )
    expect(watcher.table.resolveAlias('fast')).toBe('known')
    expect(lines.some((l) => l.includes('presets refused'))).toBe(true)
    await writeFile(join(dir, 'presets.toml'), '[presets.v]\nmodel = "nothing-like-it"\n')
    await until(() => expect(watcher.problem).toMatch(/preset "v": model: .*got "nothing-like-it"/))
    await writeFile(join(dir, 'presets.toml'), '[presets.v]\nmodel = "known"\n')
    await until(() => expect(watcher.problem).toBeNull())
    expect(watcher.table.resolveAlias('v')).toBe('known')
  })

  it('has no presets once the file is removed', async () => {
    await rm(join(dir, 'presets.toml'))
    await until(() => expect(watcher.table.empty).toBe(true))
    expect(watcher.problem).toBeNull()
  })
})
