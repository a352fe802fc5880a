import { mkdir, readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import {
  BUILTIN_SLOT_NAMES,
  defaultSlotConfig,
  parseSlotConfig,
  SLOT_NAME_PATTERN,
  type SlotConfig,
  type SlotConfigError,
  stringifySlotConfig,
} from '../slot-config'
import { writeFileAtomic } from './atomic-write'

export interface SlotConfigDir {
  /** Every built-in slot (defaults when it has no file) plus every custom slot with a file. */
  configs: SlotConfig[]
  /** Files that did not parse; their slots keep the built-in defaults (or are absent when custom). */
  errors: SlotConfigError[]
}

/** Reads `<config>/slots/*.toml`. A missing directory means "all defaults". Never throws on bad files. */
export async function readSlotConfigDir(configDir: string): Promise<SlotConfigDir> {
  const dir = join(configDir, 'slots')
  let names: string[] = []
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith('.toml')).sort()
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  const byName = new Map<string, SlotConfig>()
  for (const slot of BUILTIN_SLOT_NAMES) byName.set(slot, defaultSlotConfig(slot)!)
  const errors: SlotConfigError[] = []
  for (const file of names) {
    const slot = file.slice(0, -'.toml'.length)
    const path = join(dir, file)
    if (!SLOT_NAME_PATTERN.test(slot)) {
      errors.push({
        file: path,
        field: null,
        expected: 'a valid slot name',
        message: `${path}: "${slot}" is not a valid slot name`,
      })
      continue
    }
    const result = parseSlotConfig(slot, await readFile(path, 'utf8'), path)
    if (result.ok) byName.set(slot, result.config)
    else errors.push(result.error)
  }
  return { configs: [...byName.values()], errors }
}

/**
 * Writes one slot's config atomically to `<config>/slots/<slot>.toml`, mode 0600: a slot file may
 * hold a URL with a password or `args` with an API key, and only the API (its owner) reads it. An
 * existing file keeps its owner and group (a file the operator made for the API's user stays so);
 * its mode is narrowed to 0600 whatever it was.
 */
export async function writeSlotConfig(configDir: string, config: SlotConfig): Promise<string> {
  const dir = join(configDir, 'slots')
  await mkdir(dir, { recursive: true })
  const path = join(dir, `${config.name}.toml`)
  await writeFileAtomic(path, stringifySlotConfig(config), { mode: 0o600, keepOwner: true })
  return path
}
