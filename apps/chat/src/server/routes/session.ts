import { Hono } from 'hono'
import type { ChatDeps } from '../deps'
import { checkAccess } from '../upstream/access'
import { listModels } from '../upstream/models'

/**
 * - `GET api/me` → `{identity, auth: "proxy"|"off", version}`: who the chat app thinks you are.
 * - `GET api/models` → the picker's models with their loaded state and capabilities (see
 *   `listModels`); an API that cannot be reached or refuses the chat app's token is an error the page
 *   shows as a banner.
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
}
