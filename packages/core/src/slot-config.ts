/**
 * Slot config: `<config>/slots/<slot>.toml` (docs/configuration.md).
 *
 * `parseSlotConfig` is pure (text in, value out) and never throws: a broken file is an expected
 * outcome and comes back as a `SlotConfigError` that names the file, the field and what was expected.
 * Unknown keys are refused so that a typo (`backnd = "rocm"`) is reported instead of silently ignored.
 */
import { parse as parseToml, stringify as stringifyToml, TomlError } from 'smol-toml'
import * as v from 'valibot'
import { deepestIssue, runtimeFieldsRefusal } from './slot-config-checks'
import {
  DEMAND_FILE_ENTRIES,
  resolveDemand,
  type SlotDemandConfig,
  stringifyDemand,
} from './slot-config-demand'
import * as replicaKeys from './slot-config-routing'

export const BACKENDS = ['vulkan', 'rocm', 'cuda', 'cpu', 'npu'] as const
export type Backend = (typeof BACKENDS)[number]

export const RUNTIMES = ['container', 'process', 'remote', 'swarm'] as const
export type RuntimeKind = (typeof RUNTIMES)[number]

export const LLM_ROLES = ['chat', 'embed', 'rerank'] as const
export type LlmRole = (typeof LLM_ROLES)[number]

export const RESTART_POLICIES = ['on-failure', 'no'] as const
export type RestartPolicy = (typeof RESTART_POLICIES)[number]

/** What a load that does not fit in its device's memory budget may do (`idle`: unload LRU idle slots). */
export const EVICT_POLICIES = ['never', 'idle'] as const
export type EvictPolicy = (typeof EVICT_POLICIES)[number]

/** Most replicas one slot may ask for (a swarm service or a remote `urls` list). */
export const MAX_REPLICAS = 32

/** The built-in slots and what a missing field means for each. Custom slots must name `provider`. */
export const BUILTIN_SLOTS = {
  primary: { provider: 'llm', role: 'chat' },
  embed: { provider: 'llm', role: 'embed' },
  stt: { provider: 'stt' },
  tts: { provider: 'tts' },
  img: { provider: 'image', backend: 'rocm' },
} as const satisfies Record<string, { provider: string; role?: LlmRole; backend?: Backend }>
export type BuiltinSlot = keyof typeof BUILTIN_SLOTS
export const BUILTIN_SLOT_NAMES = Object.keys(BUILTIN_SLOTS) as BuiltinSlot[]

/** Slot names are also file names and URL segments: lower-case, short, no dots or slashes. */
export const SLOT_NAME_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/

export function isBuiltinSlot(name: string): name is BuiltinSlot {
  return Object.hasOwn(BUILTIN_SLOTS, name)
}

const name = v.pipe(v.string(), v.regex(/^[a-z][a-z0-9-]{0,31}$/, 'a lower-case name like "llm"'))
const httpUrl = v.pipe(v.string(), v.url('an http(s) URL'), v.regex(/^https?:\/\//i, 'an http(s) URL'))
const modelId = v.pipe(v.string(), v.minLength(1, 'a model id'))
/** A Docker Swarm placement constraint: `node.labels.svc.gpu==rocm`, `node.role!=manager`. */
const constraint = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9_.-]+\s*(==|!=)\s*\S+$/, 'a constraint like "node.labels.svc.gpu==rocm"'),
)

export const SlotConfigFileSchema = v.strictObject({
  enabled: v.optional(v.boolean()),
  provider: v.optional(name),
  backend: v.optional(v.picklist(BACKENDS)),
  runtime: v.optional(v.picklist(RUNTIMES)),
  url: v.optional(httpUrl),
  urls: v.optional(
    v.pipe(
      v.array(httpUrl),
      v.minLength(1, 'at least one URL'),
      v.maxLength(MAX_REPLICAS, 'at most 32 URLs'),
    ),
  ),
  replicas: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_REPLICAS))),
  constraints: v.optional(v.array(constraint)),
  evict: v.optional(v.picklist(EVICT_POLICIES)),
  restart: v.optional(v.picklist(RESTART_POLICIES)),
  max_restarts: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(100))),
  role: v.optional(v.picklist(LLM_ROLES)),
  ctx_size: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(4_194_304))),
  args: v.optional(v.array(v.string())),
  // `model = "name"` is short for `[model] default = "name"` (for a remote slot: the remote's model id).
  model: v.optional(
    v.union([
      modelId,
      v.strictObject({
        default: v.optional(modelId),
        sha256: v.optional(v.pipe(v.string(), v.regex(/^[0-9a-fA-F]{64}$/, '64 hex digits'))),
        /** The vision projector loaded with `default` (llm only): a local path or an http(s) URL. */
        mmproj: v.optional(v.pipe(v.string(), v.minLength(1, 'a projector file path or URL'))),
      }),
    ]),
  ),
  ...DEMAND_FILE_ENTRIES,
  ...replicaKeys.REPLICA_FILE_ENTRIES,
})
export type SlotConfigFile = v.InferOutput<typeof SlotConfigFileSchema>

/** A slot's config with every default applied. */
export interface SlotConfig {
  name: string
  enabled: boolean
  provider: string
  /** Undefined means "let the picker choose" (the image slot defaults to `rocm`). */
  backend?: Backend
  runtime?: RuntimeKind
  /** Remote only: the running upstream (one of `url` / `urls`). */
  url?: string
  /** Remote only: several running upstreams serving the same model (replicas). */
  urls?: string[]
  /** Swarm, process, container: how many upstreams run (local: one per entry of `devices` if given). */
  replicas?: number
  /** Process, container: the device of each local replica (`cuda:0`, `rocm:1`, `vulkan:0`, `cpu`). */
  devices?: string[]
  /** Swarm only: placement constraints replacing the backend's default. */
  constraints?: string[]
  /** What a load that does not fit in memory may do. */
  evict: EvictPolicy
  restart: RestartPolicy
  maxRestarts: number
  role?: LlmRole
  ctxSize?: number
  args: string[]
  /**
   * `sha256`: what the file pulled from a URL `default` must hash to (lower-case hex); `mmproj`: the
   * vision projector loaded with it.
   */
  model: { default?: string; sha256?: string; mmproj?: string }
  /** Load on request, idle unload and the request queue (`slot-config-demand.ts`). */
  demand: SlotDemandConfig
  /** How requests spread over the slot's replicas (`slot-config-routing.ts`). */
  routing: replicaKeys.SlotRoutingConfig
}

export interface SlotConfigError {
  file: string
  /** Dotted path of the offending field (`model.default`), or null for a syntax error. */
  field: string | null
  expected: string
  message: string
}

export type SlotConfigResult = { ok: true; config: SlotConfig } | { ok: false; error: SlotConfigError }

export const DEFAULT_MAX_RESTARTS = 5

function fail(file: string, field: string | null, expected: string, detail: string): SlotConfigResult {
  const where = field === null ? file : `${file}: field "${field}"`
  return { ok: false, error: { file, field, expected, message: `${where}: ${detail}` } }
}

/** Applies defaults and cross-field rules to an already schema-valid object. */
export function resolveSlotConfig(slot: string, raw: SlotConfigFile, file: string): SlotConfigResult {
  if (!SLOT_NAME_PATTERN.test(slot)) {
    return fail(file, null, 'a slot name of a-z, 0-9, - and _', `"${slot}" is not a valid slot name`)
  }
  const builtin = isBuiltinSlot(slot) ? BUILTIN_SLOTS[slot] : undefined
  const provider = raw.provider ?? builtin?.provider
  if (!provider) {
    return fail(
      file,
      'provider',
      'a provider name',
      'custom slots must name their provider, e.g. provider = "llm"',
    )
  }
  const refusal = runtimeFieldsRefusal(raw)
  if (refusal) return fail(file, refusal.field, refusal.expected, refusal.detail)
  const modelDefault = typeof raw.model === 'string' ? raw.model : raw.model?.default
  const modelSha256 = typeof raw.model === 'string' ? undefined : raw.model?.sha256
  const modelMmproj = typeof raw.model === 'string' ? undefined : raw.model?.mmproj
  if (modelSha256 && !/^https?:\/\//i.test(modelDefault ?? '')) {
    return fail(
      file,
      'model.sha256',
      'an http(s) URL in model.default',
      'sha256 checks a model pulled from a URL: set model.default to its http(s) URL',
    )
  }
  if (modelMmproj && provider !== 'llm') {
    return fail(
      file,
      'model.mmproj',
      'no mmproj',
      `a vision projector applies to the llm provider, not "${provider}"`,
    )
  }
  if (modelMmproj && !modelDefault) {
    return fail(file, 'model.mmproj', 'model.default', 'model.mmproj needs the model.default it belongs to')
  }
  if (raw.role && provider !== 'llm' && provider !== 'npu') {
    return fail(file, 'role', 'no role', `role applies to the llm and npu providers, not "${provider}"`)
  }
  const backendDefault = builtin && 'backend' in builtin ? builtin.backend : undefined
  const roleDefault = builtin && 'role' in builtin ? builtin.role : provider === 'llm' ? 'chat' : undefined
  const config: SlotConfig = {
    name: slot,
    enabled: raw.enabled ?? false,
    provider,
    evict: raw.evict ?? 'never',
    restart: raw.restart ?? 'on-failure',
    maxRestarts: raw.max_restarts ?? DEFAULT_MAX_RESTARTS,
    args: raw.args ?? [],
    demand: resolveDemand(raw),
    routing: replicaKeys.resolveRouting(raw),
    model: {
      ...(modelDefault ? { default: modelDefault } : {}),
      ...(modelSha256 ? { sha256: modelSha256.toLowerCase() } : {}),
      ...(modelMmproj ? { mmproj: modelMmproj } : {}),
    },
  }
  const backend = raw.backend ?? backendDefault
  if (backend) config.backend = backend
  if (raw.runtime) config.runtime = raw.runtime
  if (raw.url) config.url = raw.url
  if (raw.urls) config.urls = raw.urls
  if (raw.replicas !== undefined) config.replicas = raw.replicas
  if (raw.devices) config.devices = raw.devices
  if (raw.constraints) config.constraints = raw.constraints
  const role = raw.role ?? roleDefault
  if (role) config.role = role
  if (raw.ctx_size !== undefined) config.ctxSize = raw.ctx_size
  return { ok: true, config }
}

/** Validates an object (parsed TOML, or a JSON body of `PUT /api/slots/:slot`). Never throws. */
export function validateSlotConfig(slot: string, input: unknown, file: string): SlotConfigResult {
  const result = v.safeParse(SlotConfigFileSchema, input)
  if (!result.success) {
    const issue = deepestIssue(result.issues[0])
    const field = v.getDotPath(issue) ?? issue.path?.map((p) => String(p.key)).join('.') ?? null
    const unknownKey = issue.type === 'strict_object' && issue.expected === 'never'
    const expected = unknownKey ? 'a known field' : (issue.expected ?? 'a valid value')
    const detail = unknownKey
      ? `unknown field (allowed: ${Object.keys(SlotConfigFileSchema.entries).join(', ')})`
      : `expected ${issue.message.startsWith('Invalid') ? expected : issue.message}, got ${issue.received}`
    return fail(file, field, expected, detail)
  }
  return resolveSlotConfig(slot, result.output, file)
}

/** Parses the text of `<config>/slots/<slot>.toml`. `file` is only used in messages. Never throws. */
export function parseSlotConfig(slot: string, text: string, file = `slots/${slot}.toml`): SlotConfigResult {
  let data: unknown
  try {
    data = parseToml(text)
  } catch (error) {
    const detail =
      error instanceof TomlError
        ? `line ${error.line}, column ${error.column}: ${firstLine(error.message)}`
        : String(error)
    return fail(file, null, 'valid TOML', `not valid TOML (${detail})`)
  }
  return validateSlotConfig(slot, data, file)
}

/** The config of a slot that has no file: the built-in defaults. Undefined for a custom name. */
export function defaultSlotConfig(slot: string): SlotConfig | undefined {
  if (!isBuiltinSlot(slot)) return undefined
  const result = resolveSlotConfig(slot, {}, `slots/${slot}.toml`)
  return result.ok ? result.config : undefined
}

/** Renders a config back to TOML in the file's own spelling (snake_case), omitting defaults. */
export function stringifySlotConfig(config: SlotConfig): string {
  const out: Record<string, unknown> = { enabled: config.enabled }
  const builtin = isBuiltinSlot(config.name) ? BUILTIN_SLOTS[config.name] : undefined
  if (!builtin || builtin.provider !== config.provider) out.provider = config.provider
  if (config.backend) out.backend = config.backend
  if (config.runtime) out.runtime = config.runtime
  if (config.url) out.url = config.url
  if (config.urls) out.urls = config.urls
  if (config.replicas !== undefined) out.replicas = config.replicas
  if (config.constraints) out.constraints = config.constraints
  if (config.evict !== 'never') out.evict = config.evict
  out.restart = config.restart
  if (config.maxRestarts !== DEFAULT_MAX_RESTARTS) out.max_restarts = config.maxRestarts
  if (config.role) out.role = config.role
  if (config.ctxSize !== undefined) out.ctx_size = config.ctxSize
  if (config.args.length > 0) out.args = config.args
  if (config.devices) out.devices = config.devices
  Object.assign(out, stringifyDemand(config.demand), replicaKeys.stringifyRouting(config.routing))
  if (config.model.default) {
    out.model = {
      default: config.model.default,
      ...(config.model.sha256 ? { sha256: config.model.sha256 } : {}),
      ...(config.model.mmproj ? { mmproj: config.model.mmproj } : {}),
    }
  }
  return `${stringifyToml(out)}\n`
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message
}
