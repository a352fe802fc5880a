import { join } from 'node:path'
import {
  createTokenStore,
  isScope,
  LIMIT_SHORT_NAMES,
  parseModelGlobList,
  parseToken,
  type QuotaLimits,
  SCOPES,
  TOKEN_ID_PATTERN,
  TOKENS_FILE,
} from '@svc/auth'
import { isSvcError } from '@svc/core'
import { resolvePaths } from '@svc/core/node'
import { apiIsUp } from '../api-client'
import { type CliContext, CliError, type Command, UsageError } from '../context'
import { suggestion } from '../did-you-mean'
import { table } from '../format'
import { runSubcommand } from '../subcommands'
import { apiBackend, type Backend, hintWhenAuthIsOff, NeedsCredentials } from './token-api'
import { checkStillReadable, expectedReader } from './token-file'

const WARNING =
  'Store this token now: it is shown only once and cannot be recovered (svc keeps only an argon2id hash of it).'

const HELP = `Usage: svc token <command> [options]

  svc token create --label LABEL [--scope SCOPE] [--models GLOBS] [--rpm N] [--tpm N] [--tpd N] [--json]
      Creates a token and prints it once: the token alone on stdout (so that
      TOKEN=$(svc token create --label ci) works), what it is and a warning on stderr.
      SCOPE: ${SCOPES.join(', ')} (default v1-only).
      --rpm/--tpm/--tpd: its quota in requests per minute, tokens per minute and
      tokens per UTC day (each optional; none: not limited). See docs/usage.md.
      --models: the only models it may use, comma-separated names or globs (* and ?)
      over aliases, refs and slot names: --models 'qwen3-8b*,embed'. Default: every
      model. See docs/auth.md#tokens-limited-to-models.
  svc token limits ID [--rpm N] [--tpm N] [--tpd N] [--none] [--json]
      Replaces a token's quota with the limits given (--none: no limits); without
      options, shows it. Applies from the token's next request.
  svc token ls [--json]
      Lists tokens: id, label, scope, models, limits, created, last used. Never a secret.
  svc token revoke ID
      Revokes a token at once (ID as listed; a whole svc_… token works too).

Where: the API at SVC_API_URL (default http://127.0.0.1:8080), sending SVC_TOKEN as the bearer,
when it answers; otherwise <config>/tokens.toml directly (SVC_CONFIG_DIR, the same file and lock
the API uses; a running API sees the change on its next request). Also directly when the API asks
for credentials and SVC_TOKEN is not set, or with --local. The file keeps its owner and mode (the
API's user); a change the API could not read is reported as an error, not as done.

With auth off (the default) the API checks no token: svc token create says so, and how to turn it on.
Every subcommand takes --url URL: the API to talk to (else SVC_API_URL).

Scopes: admin (everything), all (/v1 and reads of /api), v1-only (/v1 and generated images),
read-only (probes and listings).`

const USAGE = 'usage: svc token create|ls|limits|revoke … (more: svc token --help)'

export const tokenCommand: Command = {
  name: 'token',
  summary: 'create, list and revoke API tokens',
  help: HELP,
  api: true,
  run: runSubcommand('svc token', HELP, {
    create: (args, ctx) => create(parseOptions(args, 'create'), ctx),
    ls: (args, ctx) => list(parseOptions(args, 'ls'), ctx),
    list: (args, ctx) => list(parseOptions(args, 'list'), ctx),
    revoke: (args, ctx) => revoke(parseOptions(args, 'revoke'), ctx),
    limits: (args, ctx) => limits(parseOptions(args, 'limits'), ctx),
  }),
}

async function create(opts: Options, ctx: CliContext): Promise<number> {
  const label = opts.values.label
  if (label === undefined) throw new CliError('token create needs --label LABEL', 2)
  const scope = opts.values.scope ?? 'v1-only'
  if (!isScope(scope)) throw new CliError(`--scope must be one of ${SCOPES.join(', ')}`, 2)
  const limits = opts.limits
  if (opts.none) throw new CliError('--none is for svc token limits', 2)
  const models = parseModelGlobList(opts.values.models)
  const created = await withBackend(ctx, opts.local, (b) =>
    b.create({ label, scope, ...(limits ? { limits } : {}), ...(models ? { models } : {}) }),
  )
  if (opts.json) {
    ctx.stdout.write(`${JSON.stringify({ ...created, warning: WARNING }, null, 2)}\n`)
  } else {
    const quota = created.limits ? `, limits ${limitsText(created.limits)}` : ''
    const only = created.models ? `, models ${created.models.join(',')}` : ''
    ctx.stderr.write(
      `Created token ${created.id} "${created.label}" (scope ${created.scope}${only}${quota}).\n${WARNING}\n`,
    )
    ctx.stdout.write(`${created.token}\n`)
  }
  if (!opts.local) await hintWhenAuthIsOff(ctx)
  return 0
}

async function list(opts: Options, ctx: CliContext): Promise<number> {
  const tokens = await withBackend(ctx, opts.local, (b) => b.list())
  if (opts.json) ctx.stdout.write(`${JSON.stringify({ tokens }, null, 2)}\n`)
  else if (tokens.length === 0)
    ctx.stdout.write('No tokens. Create one with: svc token create --label NAME\n')
  else {
    ctx.stdout.write(
      table(
        ['ID', 'LABEL', 'SCOPE', 'MODELS', 'LIMITS', 'CREATED', 'LAST USED'],
        tokens.map((t) => [
          t.id,
          t.label,
          t.scope,
          t.models ? t.models.join(',') : 'all',
          t.limits ? limitsText(t.limits) : 'none',
          when(t.created_at),
          t.last_used_at ? when(t.last_used_at) : 'never',
        ]),
      ),
    )
  }
  return 0
}

async function revoke(opts: Options, ctx: CliContext): Promise<number> {
  const arg = opts.positional[0]
  if (!arg || opts.positional.length > 1) throw new CliError('usage: svc token revoke ID', 2)
  const parsed = parseToken(arg)
  const id = parsed.ok ? parsed.id : arg
  if (!TOKEN_ID_PATTERN.test(id))
    throw new CliError('a token id is 12 letters and digits (see svc token ls)', 2)
  if (!(await withBackend(ctx, opts.local, (b) => b.revoke(id)))) throw new CliError(`no token with id ${id}`)
  ctx.stdout.write(`Revoked token ${id}.\n`)
  return 0
}

async function limits(opts: Options, ctx: CliContext): Promise<number> {
  const arg = opts.positional[0]
  if (!arg || opts.positional.length > 1)
    throw new CliError('usage: svc token limits ID [--rpm N] [--tpm N] [--tpd N] [--none]', 2)
  if (opts.none && opts.limits) throw new CliError('--none cannot go with --rpm, --tpm or --tpd', 2)
  const parsed = parseToken(arg)
  const id = parsed.ok ? parsed.id : arg
  if (!TOKEN_ID_PATTERN.test(id))
    throw new CliError('a token id is 12 letters and digits (see svc token ls)', 2)
  const change = opts.none || opts.limits !== undefined
  const token = await withBackend(ctx, opts.local, async (b) =>
    change ? b.setLimits(id, opts.limits ?? null) : (await b.list()).find((t) => t.id === id),
  )
  if (!token) throw new CliError(`no token with id ${id}`)
  if (opts.json) ctx.stdout.write(`${JSON.stringify(token, null, 2)}\n`)
  else
    ctx.stdout.write(
      `Token ${token.id} "${token.label}": ${token.limits ? limitsText(token.limits) : 'no limits'}.\n`,
    )
  return 0
}

/** `60 rpm, 200000 tpd` */
function limitsText(limits: QuotaLimits): string {
  return Object.entries(LIMIT_SHORT_NAMES)
    .filter(([, name]) => limits[name] !== undefined)
    .map(([short, name]) => `${limits[name]} ${short}`)
    .join(', ')
}

interface Options {
  values: { label?: string; scope?: string; models?: string }
  limits: QuotaLimits | undefined
  none: boolean
  positional: string[]
  json: boolean
  local: boolean
}

const OPTIONS = ['--json', '--local', '--none', '--label', '--scope', '--models', '--rpm', '--tpm', '--tpd']

function parseOptions(args: string[], sub: string): Options {
  const out: Options = {
    values: {},
    limits: undefined,
    none: false,
    positional: [],
    json: false,
    local: false,
  }
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === '--json') out.json = true
    else if (arg === '--local') out.local = true
    else if (arg === '--none') out.none = true
    else if (/^--(label|scope|models|rpm|tpm|tpd)(=|$)/.test(arg)) {
      const [flag, inline] = arg.includes('=')
        ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
        : [arg]
      const value = inline ?? args[++i]
      if (value === undefined) throw new UsageError(`svc token ${sub}`, `${flag} needs a value`, USAGE)
      const name = flag!.slice(2)
      const limit = LIMIT_SHORT_NAMES[name]
      if (limit) {
        const n = Number(value)
        if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1)
          throw new CliError(`${flag} must be a whole number >= 1, got "${value}"`, 2)
        out.limits = { ...out.limits, [limit]: n }
      } else out.values[name as 'label' | 'scope' | 'models'] = value
    } else if (arg.startsWith('--')) {
      const flag = arg.split('=')[0]!
      throw new UsageError(
        `svc token ${sub}`,
        `unknown option ${flag}${suggestion(flag, OPTIONS, false)}`,
        USAGE,
      )
    } else out.positional.push(arg)
  }
  return out
}

/** Runs `action` against the API when it is up, else (or when it wants credentials we lack) on the file. */
async function withBackend<T>(
  ctx: CliContext,
  local: boolean,
  action: (b: Backend) => Promise<T>,
): Promise<T> {
  if (!local) {
    if (await apiIsUp(ctx)) {
      try {
        return await action(apiBackend(ctx))
      } catch (error) {
        if (!(error instanceof NeedsCredentials)) throw error
        ctx.stderr.write(
          `svc: the API at ${ctx.apiUrl} needs credentials (SVC_TOKEN); using the config dir directly\n`,
        )
      }
    }
  }
  const paths = resolvePaths(ctx.env)
  const tokensPath = join(paths.configDir, TOKENS_FILE)
  const reader = await expectedReader(tokensPath, paths.stateDir)
  const store = createTokenStore({
    configDir: paths.configDir,
    watch: false,
    flushIntervalMs: 0,
    ...(reader ? { newFileOwner: reader } : {}),
  })
  try {
    const result = await action(store)
    await checkStillReadable(tokensPath, reader)
    return result
  } catch (error) {
    if (error instanceof CliError) throw error
    if (isSvcError(error)) throw new CliError(error.message, 2)
    if (error instanceof Error && 'code' in error && (error as NodeJS.ErrnoException).code === 'EACCES') {
      throw new CliError(`cannot write ${store.path}: permission denied (run as the user that owns it)`)
    }
    throw error instanceof Error ? new CliError(error.message) : error
  } finally {
    await store.close()
  }
}

/** `2025-01-02T03:04:05.678Z` → `2025-01-02 03:04Z` */
function when(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}Z`
}
