import { bodySizeLimit, refuseMethod, SvcError } from '@svc/core'
import { Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { methodNotAllowed } from 'hono/method-not-allowed'
import { requestId } from 'hono/request-id'
import type { AppDeps } from './deps'
import { errorResponse } from './errors'
import { createStreamLimit } from './events/stream-limit'
import { authMiddleware, createAuthenticator } from './middleware/auth'
import { httpMetrics } from './middleware/http-metrics'
import { activityRoutes } from './routes/activity'
import { audioVoicesRoutes } from './routes/audio-voices'
import { authOpenRoutes } from './routes/auth-open'
import { configRoutes } from './routes/config-urls'
import { eventRoutes } from './routes/events'
import { hardwareRoutes } from './routes/hardware'
import { hubApiRoutes } from './routes/hub-api'
import { imageCacheRoutes } from './routes/image-cache'
import { installRoutes } from './routes/install'
import { modelsApiRoutes } from './routes/models-api'
import { presetRoutes } from './routes/presets'
import { slotLogRoutes } from './routes/slot-logs'
import { slotRoutes } from './routes/slots'
import { systemRoutes } from './routes/system'
import { tokenRoutes } from './routes/tokens'
import { usageRoutes } from './routes/usage'
import { v1ModelsRoutes } from './routes/v1-models'
import { voiceUploadRoutes } from './routes/voice-uploads'

export const DEFAULT_BODY_LIMIT = 1024 * 1024

/**
 * Builds the svc HTTP app from injected dependencies. Opens no socket and reads no env, so tests
 * call `app.request()` directly or serve it on port 0.
 */
export function createApp(deps: AppDeps) {
  const streams = createStreamLimit(deps.maxStreams)
  const app = new Hono()
  app.use(requestId({ headerName: 'X-Request-Id' }))
  app.use(httpMetrics(deps.metrics))
  // Before routing, 405s and body reading: an anonymous caller learns nothing and costs nothing.
  app.use(authMiddleware(createAuthenticator(deps.auth)))
  app.use(methodNotAllowed({ app, onMethodNotAllowed: refuseMethod }))
  app.use('/api/*', bodyLimit(bodySizeLimit(deps.bodyLimitBytes ?? DEFAULT_BODY_LIMIT)))

  const routes = app
    .route('/api', systemRoutes(deps))
    .route('/api/install', installRoutes(deps))
    .route('/api/config', configRoutes(deps))
    .route('/api/auth', authOpenRoutes(deps))
    .route('/api/auth/tokens', tokenRoutes(deps))
    .route('/v1/models', v1ModelsRoutes(deps))
    .route(
      '/api/slots',
      slotRoutes({
        slots: deps.slots,
        configDir: deps.paths.configDir,
        ...(deps.activity ? { activity: deps.activity } : {}),
        ...(deps.pulls ? { pulls: deps.pulls } : {}),
      }),
    )
    .route('/api/slots', slotLogRoutes({ manager: deps.slots.manager, streams }))
    .route('/api/models', modelsApiRoutes(deps))
    .route('/api/presets', presetRoutes(deps))
    .route('/api/models', hubApiRoutes(deps))
    .route('/v1/audio/voices', audioVoicesRoutes({ manager: deps.slots.manager, voices: deps.slots.voices }))
    .route('/v1/audio/voices', voiceUploadRoutes({ voices: deps.slots.voices }))
    .route('/api/events', eventRoutes({ ...deps, streams }))
    .route('/api/hardware', hardwareRoutes(deps))
    .route('/api/images/cache', imageCacheRoutes(deps.slots))
    .route('/api/usage', usageRoutes(deps))
    .route('/api/activity', activityRoutes(deps))

  // Returned, not thrown: methodNotAllowed only turns a plain 404 into a 405. The dashboard's files
  // (and its client routes) are what no API route matched.
  app.notFound((c) => {
    const file = deps.dashboard?.respond({
      method: c.req.method,
      path: c.req.path,
      header: (n) => c.req.header(n),
    })
    if (file) return file
    const error = new SvcError('route.not_found', `no route for ${c.req.method} ${c.req.path}`)
    return errorResponse(error, c, deps.logger)
  })
  app.onError((error, c) => errorResponse(error, c, deps.logger))
  return routes
}

export type AppType = ReturnType<typeof createApp>
