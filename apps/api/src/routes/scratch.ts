import { Hono } from 'hono'
import * as v from 'valibot'
import type { AppDeps } from '../deps'
import { readJson } from '../validate'

/** Throwaway: `GET /api/scratch` → `{slots}`; `POST /api/scratch {name}` → `{hello}`. */
export function scratchRoutes(deps: AppDeps) {
  return new Hono()
    .get('/', (c) => c.json({ slots: deps.slots.manager.list().length }))
    .post('/', async (c) => {
      const body = await readJson(c, v.strictObject({ name: v.string() }))
      return c.json({ hello: body.name })
    })
}
