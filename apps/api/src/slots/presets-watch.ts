/**
 * `<config>/presets.toml` is read while svc runs (as the slot files are, `config-watch.ts`): an edit
 * applies to the next request, without a restart (docs/models.md, "Presets").
 *
 * - A valid file: its presets replace the ones in use. Request fields (`defaults`, `force`, `strip`)
 *   apply from the next request; engine settings (`args`, `ctx_size`) from the next load of the model
 *   (a running engine is left alone).
 * - A file that does not parse or validate, or names a model svc does not know: nothing changes — the
 *   last good presets stay in use, and the problem (file, preset, what was expected) is logged and
 *   shown by `GET /api/presets` until a later edit applies.
 * - No file (or a removed one): no presets; requests pay nothing for them.
 *
 * Events are debounced (editors write in several steps) and reads run one after another, so an older
 * read never wins over a newer one. The directory is watched, not the file: editors replace a file
 * by renaming a new one over it.
 */
import { type FSWatcher, mkdirSync, watch } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Logger } from '@svc/core/node'
import { checkPresetModels, PresetTable, parsePresets } from '@svc/providers/models'

export const PRESETS_FILE = 'presets.toml'

/** What applies now. */
export interface PresetsState {
  /** The presets in use: the last good file's (empty without a file). */
  readonly table: PresetTable
  /** Why the file on disk is not what applies; null when it is (or there is no file). */
  readonly problem: string | null
  /** The file's path. */
  readonly file: string
}

export interface PresetsWatcher extends PresetsState {
  /** Reads the file now (what a change event does after its debounce). */
  reload(): Promise<void>
  /** Stops watching; pending reloads are dropped. Idempotent. */
  close(): void
}

export interface WatchPresetsOptions {
  configDir: string
  logger: Logger
  /** Whether svc knows a model a preset names (a ref, a curated id, a hosted ref). */
  knows(model: string): Promise<boolean>
  /** Quiet time after the last event before the file is read (ms). Default 100. */
  debounceMs?: number
}

/** Reads the presets file once (awaited: the first request sees it) and watches it from then on. */
export async function watchPresets(options: WatchPresetsOptions): Promise<PresetsWatcher> {
  const { logger } = options
  const file = join(options.configDir, PRESETS_FILE)
  const debounceMs = options.debounceMs ?? 100
  let table = PresetTable.EMPTY
  let problem: string | null = null
  let chain: Promise<void> = Promise.resolve()
  let pending: NodeJS.Timeout | undefined
  let closed = false

  async function read(): Promise<void> {
    let text: string | undefined
    try {
      text = await readFile(file, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        problem = `${file}: cannot be read (${(error as Error).message})`
        logger.warn('presets unreadable; the last good presets stay in use', { file, error: problem })
        return
      }
    }
    if (closed) return
    if (text === undefined) {
      if (!table.empty) logger.info('presets file removed: no presets', { file })
      table = PresetTable.EMPTY
      problem = null
      return
    }
    const refuse = (why: string) => {
      problem = why
      logger.warn('presets refused; the last good presets stay in use', { file, error: why })
    }
    const parsed = parsePresets(text, file)
    if (!parsed.ok) return refuse(parsed.problem)
    const unknown = await checkPresetModels(parsed.table, file, options.knows)
    if (closed) return
    if (unknown !== undefined) return refuse(unknown)
    table = parsed.table
    problem = null
    logger.info('presets applied', { file, presets: table.list().map((p) => p.name) })
  }

  const reload = (): Promise<void> => {
    chain = chain.then(read).catch((error) => logger.error('presets reload failed', { file, error }))
    return chain
  }

  let watcher: FSWatcher | undefined
  try {
    mkdirSync(options.configDir, { recursive: true })
    watcher = watch(options.configDir, { persistent: false }, (_event, filename) => {
      if (filename !== PRESETS_FILE) return
      clearTimeout(pending)
      pending = setTimeout(() => void reload(), debounceMs)
      pending.unref()
    })
    watcher.on('error', (error) => {
      logger.warn('presets watcher stopped: edits apply at the next start', { file, error })
      watcher?.close()
    })
  } catch (error) {
    logger.warn('cannot watch the presets file: edits apply at the next start', { file, error })
  }
  await reload()

  return {
    get table() {
      return table
    },
    get problem() {
      return problem
    },
    file,
    reload,
    close() {
      closed = true
      watcher?.close()
      clearTimeout(pending)
    },
  }
}
