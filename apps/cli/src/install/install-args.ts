import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { parseDurationMs } from '@svc/core'
import { CliError } from '../context'
import { usageErrorOf } from '../parse-options'

export interface InstallArgs {
  /** undefined: keep what the last run chose (off on a first run). */
  auth?: 'basic' | 'off'
  root: string
  dryRun: boolean
  ports: { api?: number; chat?: number; gate?: number; http?: number; https?: number }
  containers?: boolean
  /** Where the admin password comes from, other than SVC_ADMIN_PASSWORD or the terminal prompt. */
  passwordFrom?: { stdin: true } | { file: string }
  /** `--load-on-request` / `--no-load-on-request`; undefined: keep what api.env says. */
  loadOnRequest?: boolean
  /** `--unload-after` as given (trimmed), a valid duration; undefined: keep what api.env says. */
  unloadAfter?: string
}

/** Parses `svc install` flags; a wrong one is a usage error (exit 2). */
export function parseInstallArgs(args: string[]): InstallArgs {
  let values: ReturnType<typeof parse>['values']
  try {
    values = parse(args).values
  } catch (error) {
    throw (
      usageErrorOf(
        error,
        'svc install',
        'usage: svc install [options] (see svc install --help)',
        INSTALL_OPTIONS,
      ) ?? new CliError(`${(error as Error).message} (see svc install --help)`, 2)
    )
  }
  const auth = values.auth
  if (auth !== undefined && auth !== 'basic' && auth !== 'off')
    throw new CliError(`--auth must be basic or off, got "${auth}"`, 2)
  if (values.containers && values['no-containers'])
    throw new CliError('--containers and --no-containers exclude each other', 2)
  if (values['admin-password-stdin'] && values['admin-password-file'] !== undefined)
    throw new CliError('--admin-password-stdin and --admin-password-file exclude each other', 2)
  if (values['load-on-request'] && values['no-load-on-request'])
    throw new CliError('--load-on-request and --no-load-on-request exclude each other', 2)
  const unloadAfter = values['unload-after']?.trim()
  if (unloadAfter !== undefined && parseDurationMs(unloadAfter) === undefined)
    throw new CliError(
      `--unload-after must be a duration like "15m", "90s", "2h" or 0, got "${values['unload-after']}"`,
      2,
    )
  const root = values.root === undefined ? '/' : resolve(values.root)
  return {
    ...(auth ? { auth } : {}),
    root,
    dryRun: values['dry-run'] ?? false,
    ports: {
      api: port('--api-port', values['api-port']),
      chat: port('--chat-port', values['chat-port']),
      gate: port('--gate-port', values['gate-port']),
      http: port('--http-port', values['http-port']),
      https: port('--https-port', values['https-port']),
    },
    ...(values.containers ? { containers: true } : values['no-containers'] ? { containers: false } : {}),
    ...(values['admin-password-stdin']
      ? { passwordFrom: { stdin: true } }
      : values['admin-password-file'] !== undefined
        ? { passwordFrom: { file: resolve(values['admin-password-file']) } }
        : {}),
    ...(values['load-on-request']
      ? { loadOnRequest: true }
      : values['no-load-on-request']
        ? { loadOnRequest: false }
        : {}),
    ...(unloadAfter !== undefined ? { unloadAfter } : {}),
  }
}

const OPTIONS = {
  auth: { type: 'string' },
  root: { type: 'string' },
  'dry-run': { type: 'boolean' },
  'api-port': { type: 'string' },
  'chat-port': { type: 'string' },
  'gate-port': { type: 'string' },
  'http-port': { type: 'string' },
  'https-port': { type: 'string' },
  containers: { type: 'boolean' },
  'no-containers': { type: 'boolean' },
  'admin-password-stdin': { type: 'boolean' },
  'admin-password-file': { type: 'string' },
  'load-on-request': { type: 'boolean' },
  'no-load-on-request': { type: 'boolean' },
  'unload-after': { type: 'string' },
} as const
const INSTALL_OPTIONS = Object.keys(OPTIONS)

function parse(args: string[]) {
  return parseArgs({ args, strict: true, allowPositionals: false, options: OPTIONS })
}

function port(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!/^\d+$/.test(value) || n < 1 || n > 65535)
    throw new CliError(`${flag} must be a port (1-65535), got "${value}"`, 2)
  return n
}
