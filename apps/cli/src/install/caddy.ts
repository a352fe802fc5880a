import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CliError } from '../context'
import { type CaddyVersion, parseCaddyVersion, redactSecrets } from './caddyfile'
import { runCommand, which } from './exec'

type Env = Record<string, string | undefined>

export interface InstalledCaddy {
  path: string
  version: CaddyVersion
}

/** The `caddy` on PATH and its version, or undefined when there is none. */
export async function findCaddy(env: Env): Promise<InstalledCaddy | undefined> {
  const path = which('caddy', env.PATH)
  if (!path) return undefined
  const r = await runCommand([path, 'version'], { env })
  const version = r.code === 0 ? parseCaddyVersion(r.output) : undefined
  if (!version)
    throw new CliError(`cannot tell the version of ${path}: \`caddy version\` said: ${r.output.trim()}`)
  return { path, version }
}

/**
 * Runs `caddy validate` on `caddyfile` (a rendered file, not yet installed). Validation provisions
 * the modules, which creates a local CA in the caller's data directory; a throw-away HOME/XDG dir
 * keeps that off the system. The output is returned with the secrets taken out.
 */
export async function validateCaddyfile(
  caddy: InstalledCaddy,
  caddyfile: string,
  options: { env: Env; secrets: string[] },
): Promise<{ ok: boolean; output: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-caddy-validate-'))
  try {
    await chmod(dir, 0o700)
    const file = join(dir, 'Caddyfile')
    await writeFile(file, caddyfile, { mode: 0o600 })
    const r = await runCommand([caddy.path, 'validate', '--config', file, '--adapter', 'caddyfile'], {
      env: { PATH: options.env.PATH, HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir },
      cwd: dir,
    })
    return { ok: r.code === 0, output: redactSecrets(r.output, options.secrets) }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** Where Caddy's local CA root is, for a Caddy run as a user whose home is `home`. */
export function caRootPath(home: string): string {
  return join(home, '.local/share/caddy/pki/authorities/local/root.crt')
}
