import { bodySizeLimit, refuseMethod, SvcError } from '@svc/core'
import { Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { methodNotAllowed } from 'hono/method-not-allowed'
import type { ChatDeps } from './deps'
import { hostOnly, sameSiteOnly } from './http/browser-rules'
import { renderError } from './http/errors'
import { identityMiddleware } from './http/identity'
import { MAX_JSON_BODY_BYTES } from './http/limits'
import { answerRoutes } from './routes/answers'
import { audioRoutes } from './routes/audio'
import { conversationRoutes } from './routes/conversations'
import { fileRoutes } from './routes/files'
import { imageRoutes } from './routes/images'
import { sessionRoutes } from './routes/session'
import { staticRoutes } from './routes/static'
import { voiceRoutes } from './routes/voice'

/**
 * The chat app: the browser's only server. Opens no socket and reads no env (server.ts does), so
 * tests call `app.request()` or serve it on port 0. Every URL is relative to where it is mounted:
 * `api/…` for data, the build for the rest.
 */
export function createChatApp(deps: ChatDeps) {
  const app = new Hono()
  app.use(hostOnly(deps.hosts, deps.proxyVouches))
  // Liveness for the installer and service checks: no identity needed, nothing revealed.
  app.get('/api/health', (c) => c.json({ status: 'ok', version: deps.version }))
  app.use(sameSiteOnly({ fromProxy: deps.fromProxy, authOff: deps.trustedHeader === undefined }))
  app.use(
    identityMiddleware({
      trustedHeader: deps.trustedHeader,
      fromProxy: deps.fromProxy,
      store: deps.store,
      tokenBacked: deps.api.hasToken,
    }),
  )
  // After the identity check (someone refused learns nothing), like the API: a known path with
  // another method is 405 with `Allow` and the error body, not a 404.
  app.use(methodNotAllowed({ app, onMethodNotAllowed: refuseMethod }))
  const jsonLimit = bodyLimit(bodySizeLimit(MAX_JSON_BODY_BYTES))
  app.use('/api/conversations/*', jsonLimit)
  app.use('/api/audio/speech', jsonLimit)
  app.use('/api/models/*', jsonLimit)

  const routes = app
    .route('/api', sessionRoutes(deps))
    .route('/api/conversations', conversationRoutes(deps))
    .route('/api/conversations', answerRoutes(deps))
    .route('/api/conversations', imageRoutes(deps))
    .route('/api/files', fileRoutes(deps))
    .route('/api/audio', audioRoutes(deps))
    .route('/api', voiceRoutes(deps))
    .route('/', staticRoutes(deps.staticDir))

  app.notFound((c) => {
    const error = new SvcError('route.not_found', `no route for ${c.req.method} ${c.req.path}`)
    return renderError(error, c, deps.logger)
  })
  app.onError((error, c) => renderError(error, c, deps.logger))
  return routes
}

/** The app's route types, for the browser's typed client (`hono/client`). */
export type ChatAppType = ReturnType<typeof createChatApp>
