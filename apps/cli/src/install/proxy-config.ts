import { randomBytes } from 'node:crypto'
import { CliError } from '../context'
import { cliVar } from '../env-variables'
import { findCaddy, type InstalledCaddy, validateCaddyfile } from './caddy'
import { type CaddyfileInput, renderCaddyfile } from './caddyfile'
import {
  checkAdminUser,
  hashPassword,
  type PasswordSource,
  type PromptStreams,
  readPassword,
} from './credentials'
import type { Effects } from './effects'
import { shellQuote } from './exec'
import { checkHostname, defaultHostname, type TlsMode, tlsModeFor } from './host-name'
import type { InstallState } from './install-state'
import { CADDY_INSTALL_DOCS } from './layout'
import { findPackageManager } from './package-manager'

type Env = Record<string, string | undefined>

/** The basic-auth inputs, checked: nothing is changed until all of them are good. */
export interface AuthInputs {
  user: string
  password: string
  hostname: string
  tls: TlsMode
  email?: string
}

const EMAIL = /^[^\s@{}"#]+@[^\s@{}"#]+\.[^\s@{}"#]+$/

/**
 * Reads `SVC_ADMIN_USER` (default `admin`), the password (see `readPassword`), `SVC_HOSTNAME` (default `<host>.local`) and `SVC_TLS_EMAIL` (required for a public name).
 * A dry run does not ask for the password.
 */
export async function readAuthInputs(
  env: Env,
  options: { previous?: InstallState; io?: PromptStreams; dryRun: boolean; passwordFrom?: PasswordSource },
): Promise<AuthInputs> {
  const user = checkAdminUser(cliVar(env, 'SVC_ADMIN_USER') || options.previous?.adminUser || 'admin')
  const host = checkHostname(cliVar(env, 'SVC_HOSTNAME') || options.previous?.hostname || defaultHostname())
  if (!host.ok) throw new CliError(host.error, 2)
  const tls = tlsModeFor(host.name)
  let email: string | undefined
  if (tls === 'acme') {
    email = cliVar(env, 'SVC_TLS_EMAIL') || options.previous?.tlsEmail
    if (!email) {
      throw new CliError(
        `${host.name} is a public name, so its certificate comes from a public CA (ACME): set SVC_TLS_EMAIL to the address for expiry notices`,
        2,
      )
    }
    if (!EMAIL.test(email)) throw new CliError(`SVC_TLS_EMAIL "${email}" is not an e-mail address`, 2)
  }
  const password =
    options.dryRun && !cliVar(env, 'SVC_ADMIN_PASSWORD') && !options.passwordFrom
      ? randomBytes(12).toString('base64url')
      : await readPassword(env, options.io, options.passwordFrom)
  return { user, password, hostname: host.name, tls, ...(email ? { email } : {}) }
}

/**
 * The Caddy to render for: the one on PATH, else installed with the system package manager. With no
 * usable package manager this throws before anything was changed, pointing to Caddy's install docs.
 * `--root` never installs packages on this machine; a dry run only says what it would run.
 */
export async function ensureCaddy(fx: Effects, env: Env): Promise<InstalledCaddy | undefined> {
  const found = await findCaddy(env)
  if (found) return found
  const pm = findPackageManager(env.PATH)
  if (!pm) {
    throw new CliError(
      `Caddy is not installed and no package manager here (apt, dnf, pacman, zypper, apk) can install it. Install Caddy by following ${CADDY_INSTALL_DOCS}, then run svc install again. Nothing was changed.`,
    )
  }
  if (fx.root !== '/' && !fx.dryRun) {
    throw new CliError(
      `Caddy is not installed on this machine, and --root does not install packages here: install it first (${pm.installCaddy.map(shellQuote).join(' && ')}). Nothing was changed.`,
    )
  }
  try {
    for (const argv of pm.installCaddy) await fx.run(argv, `install Caddy with ${pm.name}`)
  } catch (error) {
    throw new CliError(
      `${(error as Error).message}\n${pm.name} could not install Caddy. Install it by following ${CADDY_INSTALL_DOCS}, then run svc install again.`,
    )
  }
  if (fx.dryRun) return undefined
  const installed = await findCaddy(env)
  if (!installed)
    throw new CliError(`${pm.name} ran, but there is still no caddy on PATH; see ${CADDY_INSTALL_DOCS}`)
  return installed
}

/** A rendered Caddyfile with the secrets it carries. */
export interface RenderedProxy {
  caddyfile: string
  /** bcrypt of the admin password, for the auth gate's users file. */
  passwordHash: string
  proxySecret: string
  chatProxySecret: string
}

/**
 * Renders the Caddyfile with a fresh proxy secret and a bcrypt hash of the password, and checks it
 * with `caddy validate` of the Caddy that will run it. Changes nothing on disk.
 */
export async function renderProxy(
  inputs: AuthInputs,
  options: { caddy: InstalledCaddy | undefined; ports: CaddyfileInput['ports']; env: Env },
): Promise<RenderedProxy> {
  const proxySecret = randomBytes(32).toString('base64url')
  const chatProxySecret = randomBytes(32).toString('base64url')
  const passwordHash = await hashPassword(inputs.password)
  const caddyfile = renderCaddyfile({
    hostname: inputs.hostname,
    tls: inputs.tls === 'acme' ? { mode: 'acme', email: inputs.email ?? '' } : { mode: 'internal' },
    // A dry run without Caddy renders for the version a package manager installs today.
    caddyVersion: options.caddy?.version ?? { major: 2, minor: 6, patch: 2 },
    proxySecret,
    chatProxySecret,
    ports: options.ports,
  })
  if (options.caddy) {
    const check = await validateCaddyfile(options.caddy, caddyfile, {
      env: options.env,
      secrets: [proxySecret, chatProxySecret],
    })
    if (!check.ok) {
      throw new CliError(
        `the rendered Caddyfile does not pass \`caddy validate\` (Caddy at ${options.caddy.path}); nothing was changed:\n${check.output.trim()}`,
      )
    }
  }
  return { caddyfile, passwordHash, proxySecret, chatProxySecret }
}
