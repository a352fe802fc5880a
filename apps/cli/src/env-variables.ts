/**
 * Every environment variable the CLI reads itself, declared once: its name, its default and what it
 * means. The CLI reads only names declared here (`cliVar`), and checks the ones with a form at start
 * (cli-env.ts); docs/configuration.md's CLI table is this table (test/env-docs.test.ts fails when they
 * differ). The servers it runs (`svc serve`, `svc chat`) read their own tables.
 */
import { declaredFallback, type EnvVariable } from '@svc/core/node'

export const CLI_ENV_VARIABLES = [
  {
    name: 'SVC_API_URL',
    fallback: 'http://127.0.0.1:8080',
    meaning: 'the API the commands talk to (http or https); `--url URL` on a command wins over it',
  },
  {
    name: 'SVC_TOKEN',
    meaning:
      'its bearer token for the API; without one, `svc token` works on the config dir when the API asks for credentials ([auth.md](auth.md#tokens-from-the-command-line-and-the-api))',
  },
  {
    name: 'SVC_CONFIG_DIR',
    defaultText: "as the API's",
    meaning: '`svc token` reads and writes `tokens.toml` here when the API is down or asks for credentials',
  },
  {
    name: 'SVC_STATE_DIR',
    defaultText: "as the API's",
    meaning: "`svc start`'s pid file and logs (`service/`), the instance id `svc doctor containers` shows",
  },
  {
    name: 'SVC_CACHE_DIR',
    defaultText: "as the API's",
    meaning: '`svc engines build` builds engines here',
  },
  {
    name: 'SVC_LLAMA_SERVER',
    meaning: 'the `llama-server` `svc install` installs for the service; else `PATH`, else the engine cache',
  },
  {
    name: 'SVC_WHISPER_SERVER',
    meaning:
      'the `whisper-server` `svc install` installs for the service; else `PATH`, else the engine cache',
  },
  {
    name: 'SVC_IMAGES_MANIFEST',
    defaultText: '`manifests/images.toml`',
    meaning: 'the image manifest `svc manifest` lists and pins',
  },
  {
    name: 'SVC_START_CHAT',
    fallback: '1',
    meaning: '`svc start` starts the chat app beside the API; `0`: the API alone',
  },
  {
    name: 'SVC_PORT',
    fallback: '8080',
    meaning: "the API's port (as the API reads it): `svc doctor` checks that it is free, or held by svc",
  },
  {
    name: 'SVC_CHAT_PORT',
    fallback: '3001',
    meaning:
      "the chat app's port (as the chat app reads it): `svc doctor` checks that it is free, or held by svc",
  },
  {
    name: 'SVC_ADMIN_USER',
    fallback: 'admin',
    meaning: "`svc install --auth=basic`: the admin's user name ([auth.md](auth.md#basic-auth-with-caddy))",
  },
  {
    name: 'SVC_ADMIN_PASSWORD',
    meaning:
      "`svc install --auth=basic`: the admin's password; under sudo every local user sees it in `ps`, so prefer `--admin-password-file` or `--admin-password-stdin`",
  },
  {
    name: 'SVC_HOSTNAME',
    defaultText: '`<this host>.local`',
    meaning: "`svc install --auth=basic`: the reverse proxy's public name",
  },
  {
    name: 'SVC_TLS_EMAIL',
    meaning:
      "`svc install --auth=basic`: the ACME account for a public name's certificate (required for one)",
  },
  {
    name: 'SVC_AUTH_GATE_USERS',
    meaning:
      '`svc auth-gate`: the users file, `user:bcrypt-hash` lines (`svc install` writes `/etc/svc/admin.htpasswd`)',
  },
  {
    name: 'SVC_AUTH_GATE_PORT',
    fallback: '3002',
    meaning: '`svc auth-gate`: its port, on 127.0.0.1 only',
  },
  {
    name: 'SVC_PROXY_SECRET',
    meaning: '`svc auth-gate` answers only requests that carry it (`svc install` sets it)',
  },
] as const satisfies readonly EnvVariable[]

/** The name of a variable the CLI reads. */
export type CliVariable = (typeof CLI_ENV_VARIABLES)[number]['name']

/** The variable's declared fallback (a plain value); throws when it declares none (a bug, not input). */
export function cliFallback(name: CliVariable): string {
  return declaredFallback(CLI_ENV_VARIABLES, name)
}

/**
 * `name`'s value in `env` (the CLI's whole environment): the one way CLI code reads a variable, so a
 * name missing from the table (and the docs) cannot compile.
 */
export function cliVar(
  env: Readonly<Record<string, string | undefined>>,
  name: CliVariable,
): string | undefined {
  return env[name]
}
