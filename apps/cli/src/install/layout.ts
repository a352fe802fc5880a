/**
 * Where an installed svc lives on the target system (docs/operations.md, "Files"). Every path here is a path
 * on the target; with `--root DIR` the installer writes `DIR/<path>` but the files it renders still
 * name the target paths (a unit says `/etc/svc/api.env`, never the staging directory).
 */
export const LAYOUT = {
  configDir: '/etc/svc',
  stateDir: '/var/lib/svc',
  /** The chat app's own state (its user's home): the chat database and stored images (`chat/`). */
  chatStateDir: '/var/lib/svc-chat',
  /** Engine builds of the service user (its HOME is the state dir; `~/.cache` would be there too). */
  cacheDir: '/var/lib/svc/cache',
  /** Engine builds copied out of the installing user's home, where svc-api.service can run them. */
  engineDir: '/usr/local/lib/svc/engines',
  apiEnv: '/etc/svc/api.env',
  chatEnv: '/etc/svc/chat.env',
  caddyfile: '/etc/svc/Caddyfile',
  /** The admin user and the bcrypt hash of its password (`user:hash`), read by the auth gate. */
  gateUsers: '/etc/svc/admin.htpasswd',
  /** Extra site directives a user keeps across re-runs (imported into the site block). */
  caddyIncludes: '/etc/svc/caddy.d',
  /** What the last run decided (auth mode, name, ports): no secrets. */
  installState: '/etc/svc/install.json',
  tokens: '/etc/svc/tokens.toml',
  unitDir: '/etc/systemd/system',
  caddyDropIn: '/etc/systemd/system/caddy.service.d/svc.conf',
  sysusers: '/etc/sysusers.d/svc.conf',
  avahiService: '/etc/avahi/services/svc.service',
  avahiConfig: '/etc/avahi/avahi-daemon.conf',
} as const

export const API_UNIT = 'svc-api.service'
export const CHAT_UNIT = 'svc-chat.service'
/** `svc auth-gate`: checks the admin password for Caddy, with a rate limit (auth basic only). */
export const GATE_UNIT = 'svc-auth.service'
/** The proxy runs as the distribution's own Caddy service, pointed at svc's Caddyfile by a drop-in. */
export const PROXY_UNIT = 'caddy.service'

/** The system user and group the API runs as. */
export const SERVICE_USER = 'svc'
/**
 * The chat app's own system user and group. Not svc: a process of the same user could read the
 * API's environment (its proxy secret) in /proc, reach the API's files through /proc/<pid>/root and
 * signal it, whatever the chat unit's sandbox says; a compromised chat app must not be the API.
 */
export const CHAT_USER = 'svc-chat'
/** The user Caddy's packages run it as (Debian, Fedora, Arch and Alpine all call it `caddy`). */
export const CADDY_USER = 'caddy'

export const DEFAULT_PORTS = { api: 8080, chat: 3001, gate: 3002, http: 80, https: 443 } as const

/** Caddy's install page: where to go when no package manager here can install it. */
export const CADDY_INSTALL_DOCS = 'https://caddyserver.com/docs/install'
