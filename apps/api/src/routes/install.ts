import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { writeFileAtomic } from '@svc/core/node'
import { Hono } from 'hono'
import type { AppDeps } from '../deps'

interface InstallState {
  completed: boolean
  completed_at: string | null
}

/**
 * First-run sentinel: `<state>/install.json`.
 *
 * - `GET /api/install/state` → `{completed, completed_at}`
 * - `POST /api/install/complete` → the same body; idempotent (a second call keeps the first time).
 */
export function installRoutes(deps: AppDeps) {
  const file = join(deps.paths.stateDir, 'install.json')
  const now = deps.clock ?? Date.now
  let pending: Promise<InstallState> | undefined

  async function read(): Promise<InstallState> {
    try {
      const data = JSON.parse(await readFile(file, 'utf8')) as { completed_at?: unknown }
      if (typeof data.completed_at === 'string') return { completed: true, completed_at: data.completed_at }
    } catch {
      // missing or unreadable: not completed (a corrupt file is rewritten by the next complete)
    }
    return { completed: false, completed_at: null }
  }

  async function complete(): Promise<InstallState> {
    const current = await read()
    if (current.completed) return current
    const state = { completed: true, completed_at: new Date(now()).toISOString() }
    await writeFileAtomic(file, `${JSON.stringify({ completed_at: state.completed_at }, null, 2)}\n`)
    return state
  }

  return new Hono()
    .get('/state', async (c) => c.json(await read()))
    .post('/complete', async (c) => {
      // Concurrent completes share one write, so both see the same completed_at.
      pending ??= complete().finally(() => {
        pending = undefined
      })
      return c.json(await pending)
    })
}
