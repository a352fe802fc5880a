import type { IncomingMessage } from 'node:http'
import { createTokenStore, createTokenVerifier, isLoopbackHost } from '@svc/auth'
import type { Logger } from '@svc/core/node'
import { createDispatcher, type Dispatcher, type DispatchRecord, hostedRefs } from '@svc/dispatcher'
import { memoryDevices, unknownDevices } from '@svc/providers/memory'
import { PresetTable } from '@svc/providers/models'
import { createActivityLog } from './activity/activity-log'
import { loadDashboardFiles } from './dashboard/dashboard-files'
import type { AppDeps } from './deps'
import { createDispatchMetrics } from './dispatch-metrics'
import type { ServeEnv } from './env'
import type { ApiMetrics } from './metrics'
import type { AuthDeps } from './middleware/auth'
import { refuseHostedFromOtherSites } from './middleware/host'
import { allowedModelsOf } from './middleware/token-models'
import { watchSlotConfigs } from './slots/config-watch'
import { wireHardware } from './slots/hardware'
import { loadHostedUpstreams } from './slots/hosted-upstreams'
import { createModelPulls } from './slots/model-pulls'
import { type PresetsWatcher, watchPresets } from './slots/presets-watch'
import { loadProviderModules } from './slots/provider-modules'
import { createSlotActivity } from './slots/slot-activity'
import { registerSlotMetrics } from './slots/slot-metrics'
import { createSlotSystem } from './slots/slot-system'
import { warmVadOnSttReady } from './slots/vad-warm-up'
import type { RequestTracer } from './telemetry/request-tracer'
import { createUsage, type UsageService } from './usage/usage-wiring'

export interface WiringInput {
  env: ServeEnv
  logger: Logger
  metrics: ApiMetrics
}

export interface Wiring {
  deps: Pick<
    AppDeps,
    | 'features'
    | 'slots'
    | 'upstreamMetrics'
    | 'upstreamRefs'
    | 'auth'
    | 'hardware'
    | 'dashboard'
    | 'activity'
    | 'activityLog'
    | 'pulls'
    | 'hub'
    | 'usage'
    | 'presets'
  >
  dispatcher: Dispatcher
  /** The ledger, quotas and their gate (absent with SVC_USAGE_ENABLED=0). */
  usage: UsageService | undefined
  /** Traces (absent unless an OTLP endpoint is set: the SDK is then not even loaded). */
  tracing: RequestTracer | undefined
  /** Starts background work once the server listens: adopt leftovers, load enabled slots. */
  start(): Promise<void>
  /** Stops everything `start` began; called once on shutdown. */
  stop(): Promise<void>
}

/** Builds the services behind the app from the environment. */
export async function createWiring(input: WiringInput): Promise<Wiring> {
  const { env, logger } = input
  const providers = await loadProviderModules(env.providerModules)
  const hardware = await wireHardware({
    stateDir: env.paths.stateDir,
    env: env.processEnv,
    ...(env.imagesManifest ? { imagesManifest: env.imagesManifest } : {}),
    logger,
  })
  // Read once the model store and hosted upstreams exist (to check the models presets name); loads
  // before then (none: defaults load in start()) see no presets.
  let presets: PresetsWatcher | undefined
  const slots = await createSlotSystem({
    presets: () => presets?.table ?? PresetTable.EMPTY,
    hardware,
    ...(hardware.container ? { container: hardware.container } : {}),
    ...(hardware.swarm ? { swarm: hardware.swarm } : {}),
    othersLive: hardware.live.others,
    configDir: env.paths.configDir,
    stateDir: env.paths.stateDir,
    providers,
    env: env.processEnv,
    slotOptions: { drainMs: env.unloadGraceMs },
    memory: env.memory,
    demand: env.demand,
    logger,
    ...(env.modelsManifest ? { catalogueFile: env.modelsManifest } : {}),
    hub: env.hub,
  })
  for (const error of slots.configErrors) {
    logger.warn('slot config ignored', { error: error.message })
    const slot = /([^/]+)\.toml$/.exec(error.file)?.[1]
    if (slot) slots.configProblems.set(slot, { file: error.file, field: error.field, message: error.message })
  }
  const configWatch = watchSlotConfigs({ configDir: env.paths.configDir, slots, logger })
  const slotMetrics = registerSlotMetrics(input.metrics, slots)
  const activity = createSlotActivity({ bus: slots.bus })
  const pulls = createModelPulls({ store: slots.store, bus: slots.bus })
  // SVC_DASHBOARD_DIR: another build (tests); default apps/dashboard/dist. No build: no dashboard.
  const dashboard = loadDashboardFiles(env.dashboardDir)
  const debug = env.logLevel === 'debug'
  slots.bus.on('slot.transition', (e) => {
    // serving ⇄ idle happen on every request: never a log line on the hot path unless debugging
    const perRequest = (e.to === 'serving' || e.to === 'idle') && e.from !== 'warming'
    if (perRequest && !debug) return
    const fields = {
      slot: e.slot,
      from: e.from,
      to: e.to,
      model: e.model,
      ...(e.error ? { error: e.error } : {}),
    }
    if (perRequest) logger.debug('slot', fields)
    else logger.info('slot', fields)
  })
  slots.bus.on('slot.restart', (e) => logger.warn('slot restart scheduled', { ...e }))
  slots.bus.on('slot.auto', (e) => logger.info(`slot ${e.action}ed on its own`, { ...e }))
  const kindOf = (name: string) =>
    slots.manager.has(name) ? slots.provider(slots.manager.config(name)).kind : undefined
  warmVadOnSttReady({ bus: slots.bus, kindOf, logger })
  let upstreams = await loadHostedUpstreams(env.paths.configDir, env.processEnv).catch((error: Error) => {
    logger.error('upstreams.toml ignored', { error: error.message })
    return []
  })
  const presetsWatch = await watchPresets({
    configDir: env.paths.configDir,
    logger,
    knows: async (model) =>
      (await slots.store.get(model)) !== undefined || hostedRefs(upstreams).some((r) => r.id === model),
  })
  presets = presetsWatch
  const tokens = createTokenStore({
    configDir: env.paths.configDir,
    onProblem: (message) => logger.error('tokens.toml problem', { error: message }),
  })
  await tokens.refresh() // read now, so an unreadable file is reported at start, not at the first request
  const auth: AuthDeps = {
    enabled: env.authEnabled,
    store: tokens,
    verifier: createTokenVerifier({ store: tokens }),
    trustedProxies: env.trustedProxies,
    proxySecret: env.proxySecret,
  }
  if (env.authEnabled && !isLoopbackHost(env.host)) {
    logger.warn(
      'auth is on and svc listens beyond loopback: X-Forwarded-Email is trusted from these addresses',
      {
        host: env.host,
        trustedProxies: env.trustedProxies.entries,
        proxySecret: env.proxySecret ? 'set' : 'not set (any local process can claim an identity)',
      },
    )
  }
  const usage = env.usage.enabled
    ? createUsage({
        env: env.usage,
        stateDir: env.paths.stateDir,
        tokens,
        hot: input.metrics.hot,
        logger,
      })
    : undefined
  const metricsAndActivity = observeBoth(createDispatchMetrics(input.metrics.hot), activity.record)
  // Requests in flight and the last few hundred (the Activity page); who asked, from the quota gate.
  const activityLog = createActivityLog({
    bus: slots.bus,
    ...(usage ? { subjectOf: usage.gate.subjectOf } : {}),
    labelOf: (id) => tokens.lookup(id)?.label,
    slotLoading: (slot) => slots.manager.has(slot) && slots.manager.get(slot).isPending(),
  })
  const observe = usage
    ? (record: DispatchRecord, req: IncomingMessage) => {
        metricsAndActivity(record)
        usage.observe(record, req)
        activityLog.observe(record, req)
      }
    : (record: DispatchRecord, req: IncomingMessage) => {
        metricsAndActivity(record)
        activityLog.observe(record, req)
      }
  const tracing = env.traces
    ? await (await import('./telemetry/load-tracing')).startTracing({
        bus: slots.bus,
        logger,
        environment: env.processEnv,
      })
    : undefined
  const dispatcher = createDispatcher({
    slots: slots.manager,
    routeFor: (name) => slots.provider(slots.manager.config(name)),
    upstreams: () => upstreams,
    // A preset's name is known when the model it runs is.
    isKnownModel: async (id) =>
      (await slots.store.get(presetsWatch.table.loadTarget(id)?.model ?? id)) !== undefined,
    presets: {
      // A Hub name in another spelling (`hf:o/r`, a lower-case quant) is the canonical name it stands for.
      resolveAlias: (model) => presetsWatch.table.resolveAlias(model) ?? slots.store.hubNames.alias(model),
      applyRequestFields: (model, endpoint, body) =>
        presetsWatch.table.applyRequestFields(model, endpoint, body),
    },
    queueTimeoutMs: env.queueTimeoutMs,
    upstreamTimeoutMs: env.upstreamTimeoutMs,
    observe: tracing ? withTracing(observe, tracing) : observe,
    onStart: activityLog.onStart,
    // With auth on, whoever reaches a hosted upstream holds a token (or the proxy's identity).
    ...(env.authEnabled ? { allowedModels: allowedModelsOf } : { refuseHosted: refuseHostedFromOtherSites }),
    onUnexpected: (error, { requestId, route }) =>
      logger.error('unhandled error', { requestId, path: route, error }),
  })
  // An engine's shutdown waits on the connections svc holds open to it (a kept-alive one, the ready one).
  slots.bus.on('upstream.stopping', (e) => dispatcher.forget(e.origins))
  return {
    dispatcher,
    usage,
    tracing,
    deps: {
      features: {
        auth: env.authEnabled,
        slots: true,
        images: true,
        containers: hardware.container !== undefined,
        dashboard: dashboard !== undefined,
      },
      ...(dashboard ? { dashboard } : {}),
      activity,
      activityLog,
      pulls,
      // The model library searches the same Hub that `hf.co/…` names resolve against.
      hub: env.hub,
      slots,
      presets: presetsWatch,
      ...(slots.picker ? { hardware: slots.picker } : {}),
      upstreamMetrics: () => slotMetrics.scrapeUpstreams(),
      upstreamRefs: () => hostedRefs(upstreams),
      auth,
      ...(usage ? { usage: usage.recorder } : {}),
    },
    async start() {
      const report = await slots.picker?.report().catch(() => undefined)
      const unknown = report
        ? unknownDevices(
            memoryDevices(report.hardware, env.memory),
            env.memory.reserveGb,
            env.memory.budgetGb,
          )
        : []
      if (unknown.length) logger.warn('memory settings name devices this machine does not have', { unknown })
      for (const r of await slots.manager.recoverAll()) {
        logger.error('slot not recovered', { slot: r.slot, error: r.error })
      }
      for (const r of await slots.manager.loadDefaults()) {
        if (r.error) logger.error('default model did not load', { ...r })
        else logger.info('default model loaded', { ...r })
      }
    },
    async stop() {
      configWatch.close()
      presetsWatch.close()
      activity.stop()
      activityLog.stop()
      pulls.stop()
      await slots.manager.stopAll()
      await tokens.close() // writes the last `last_used_at` batch
      await hardware.live.release()
      dispatcher.close()
      usage?.close() // writes the last batch of counts
      // A collector that does not answer holds the flush for the exporter's time-out: stop waits 2 s at most.
      if (tracing) await Promise.race([tracing.close(), new Promise((r) => setTimeout(r, 2_000).unref())])
      upstreams = []
    },
  }
}

function withTracing(
  observe: (record: DispatchRecord, req: IncomingMessage) => void,
  tracing: RequestTracer,
): (record: DispatchRecord, req: IncomingMessage) => void {
  return (record, req) => {
    tracing.observe(record, req) // first: its spans end when the request did, not after the others ran
    observe(record, req)
  }
}

/** Two observers of each dispatch record (metrics and the dashboard's live figures). */
function observeBoth<R>(a: (record: R) => void, b: (record: R) => void): (record: R) => void {
  return (record) => {
    a(record)
    b(record)
  }
}
