import { Hono } from 'hono'
import type { ChatDeps } from '../deps'
import { LoadSchema } from '../http/schemas'
import { jsonBody } from '../http/validate'
import { checkAccess } from '../upstream/access'
import { loadModel } from '../upstream/load-model'
import { listModels } from '../upstream/models'

/**
 * - `GET api/me` → `{identity, auth: "proxy"|"off", version}`: who the chat app thinks you are.
 * - `GET api/models` → the picker's models with their loaded state and capabilities (see
 *   `listModels`); an API that cannot be reached or refuses the chat app's token is an error the page
 *   shows as a banner.
 * - `POST api/models/load` {model} → `{model, loaded: true}` once the model answers (see
 *   `loadModel`: as a request would load it, else the slot's load when svc lets the chat app; 403
 *   `auth.forbidden` "ask an admin to load …" when it may not).
 */
export function sessionRoutes(deps: ChatDeps) {
  return new Hono()
    .get('/me', (c) =>
      c.json({
        identity: c.get('user').identity,
        auth: deps.trustedHeader ? ('proxy' as const) : ('off' as const),
        version: deps.version,
      }),
    )
    .get('/models', async (c) => {
      const [models] = await Promise.all([
        listModels(deps.api, c.req.raw.signal),
        checkAccess(deps.api, c.req.raw.signal),
      ])
      return c.json(models)
    })
    .post('/models/load', jsonBody(LoadSchema), async (c) => {
      const { model } = c.req.valid('json')
      await loadModel(deps.api, model, c.req.raw.signal)
      return c.json({ model, loaded: true as const })
    })
}
