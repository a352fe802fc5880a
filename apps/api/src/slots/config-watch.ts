/**
 * Slot config files are read while svc runs (as `tokens.toml` is): `<config>/slots/<slot>.toml`
 * written, changed, renamed over or removed applies without a restart.
 *
 * - A valid file: its config is applied (`SlotSystem.configure`): effective at the slot's next load,
 *   the running upstream is left alone; a new custom slot appears. Event `slot.config` with `ok: true`.
 * - A file that does not parse or validate: nothing changes — the slot keeps the config it had and
 *   keeps running. The problem (file, field, message) becomes the slot's `configError` and is sent as
 *   `slot.config` with `ok: false`, until a later edit applies.
 * - A removed file: a built-in slot gets its defaults back; a custom slot keeps its config until
 *   restart (it may be serving; svc does not delete slots).
 *
 * Events for one file are debounced (editors write in several steps); the newest text wins. Without a
 * working watcher (`fs.watch` failed) edits apply at the next start, as before, and a warning is logged.
 */
import { type FSWatcher, mkdirSync, watch } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { defaultSlotConfig, parseSlotConfig, SLOT_NAME_PATTERN, type SlotConfigEvent } from '@svc/core'
import type { Logger } from '../logger'
import type { SlotSystem } from './slot-system'

export interface SlotConfigWatcher {
  /** Stops watching; pending reloads are dropped. Idempotent. */
  close(): void
}

export interface WatchSlotConfigsOptions {
  configDir: string
  slots: SlotSystem
  logger: Logger
  /** Quiet time after the last event for a file before it is read (ms). Default 100. */
  debounceMs?: number
}

export function watchSlotConfigs(options: WatchSlotConfigsOptions): SlotConfigWatcher {
  const { slots, logger } = options
  const dir = join(options.configDir, 'slots')
  const debounceMs = options.debounceMs ?? 100
  const pending = new Map<string, NodeJS.Timeout>()
  // Reloads of one file run one after another, so an older read never wins over a newer one.
  const chains = new Map<string, Promise<void>>()
  let closed = false

  const emit = (event: SlotConfigEvent) => slots.bus.emit('slot.config', event)

  async function reload(name: string): Promise<void> {
    const file = join(dir, `${name}.toml`)
    let text: string | undefined
    try {
      text = await readFile(file, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        logger.warn('slot config unreadable', { file, error })
        return
      }
    }
    if (closed) return
    const at = Date.now()
    if (text === undefined) {
      slots.configProblems.delete(name)
      const defaults = defaultSlotConfig(name)
      if (defaults) slots.configure(defaults)
      logger.info('slot config removed', { slot: name, file, effect: defaults ? 'defaults' : 'kept' })
      emit({ slot: name, file, ok: true, error: null, at })
      return
    }
    const result = parseSlotConfig(name, text, file)
    if (!result.ok) {
      const { field, expected, message } = result.error
      slots.configProblems.set(name, { file, field, message })
      logger.warn('slot config refused; the slot keeps its previous config', {
        slot: name,
        file,
        field,
        message,
      })
      emit({ slot: name, file, ok: false, error: { field, expected, message }, at })
      return
    }
    slots.configure(result.config)
    slots.configProblems.delete(name)
    logger.info('slot config applied', { slot: name, file })
    emit({ slot: name, file, ok: true, error: null, at })
  }

  function schedule(filename: string): void {
    if (!filename.endsWith('.toml')) return
    const name = filename.slice(0, -'.toml'.length)
    if (!SLOT_NAME_PATTERN.test(name)) return // editor temp files, other names: not slots
    clearTimeout(pending.get(name))
    const timer = setTimeout(() => {
      pending.delete(name)
      const next = (chains.get(name) ?? Promise.resolve()).then(() => reload(name))
      const settled = next.catch((error) => logger.error('slot config reload failed', { slot: name, error }))
      chains.set(name, settled)
      void settled.then(() => {
        if (chains.get(name) === settled) chains.delete(name)
      })
    }, debounceMs)
    timer.unref()
    pending.set(name, timer)
  }

  let watcher: FSWatcher | undefined
  try {
    mkdirSync(dir, { recursive: true })
    watcher = watch(dir, { persistent: false }, (_event, filename) => {
      if (filename) schedule(filename)
    })
    watcher.on('error', (error) => {
      logger.warn('slot config watcher stopped: edits apply at the next start', { dir, error })
      watcher?.close()
    })
  } catch (error) {
    logger.warn('cannot watch slot configs: edits apply at the next start', { dir, error })
  }

  return {
    close() {
      closed = true
      watcher?.close()
      for (const timer of pending.values()) clearTimeout(timer)
      pending.clear()
    },
  }
}
