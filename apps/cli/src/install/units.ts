import { CHAT_USER, LAYOUT, SERVICE_USER } from './layout'

export interface UnitInput {
  /** Absolute path of the node binary the services run with. */
  node: string
  /** Absolute path of the built CLI (`apps/cli/dist/svc.js`) in the installed checkout. */
  cli: string
  /** Absolute path of the checkout's README.md (the unit's documentation). */
  readme: string
  /**
   * `yes` hides /home, /root and /run/user from the service; `read-only` when the checkout or node
   * lives there (a clone in a home directory must stay readable).
   */
  protectHome: 'yes' | 'read-only'
}

/** Directories under a home that the services need; decides `ProtectHome=`. */
export function protectHomeFor(paths: string[]): UnitInput['protectHome'] {
  return paths.some((p) => /^\/(home|root|run\/user)(\/|$)/.test(p)) ? 'read-only' : 'yes'
}

interface ServiceSpec extends UnitInput {
  description: string
  subcommand: 'serve' | 'chat' | 'auth-gate'
  user: string
  envFile: string
  workingDirectory: string
  after: string[]
  extra: string[]
  /** The sandbox: what it may write and see beyond the common hardening. */
  sandbox: string[]
}

function renderService(spec: ServiceSpec): string {
  return `# Written by \`svc install\`; re-running it rewrites this file. Settings go into ${spec.envFile}.
[Unit]
Description=${spec.description}
Documentation=file://${spec.readme}
After=${['network-online.target', ...spec.after].join(' ')}
Wants=network-online.target

[Service]
Type=simple
User=${spec.user}
Group=${spec.user}
${spec.extra.map((l) => `${l}\n`).join('')}EnvironmentFile=${spec.envFile}
ExecStart=${spec.node} ${spec.cli} ${spec.subcommand}
WorkingDirectory=${spec.workingDirectory}
Restart=on-failure
RestartSec=2
# SIGTERM drains requests (SVC_DRAIN_SECONDS) and stops the upstreams svc started.
TimeoutStopSec=45

# Hardening: nothing but its own directories is writable, no privilege gain.
NoNewPrivileges=yes
ProtectSystem=strict
${spec.sandbox.map((l) => `${l}\n`).join('')}ProtectHome=${spec.protectHome}
PrivateTmp=yes
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectControlGroups=yes
RestrictSUIDSGID=yes
LockPersonality=yes

[Install]
WantedBy=multi-user.target
`
}

/**
 * `svc-api.service`: `svc serve` as the svc user. `containers` adds the docker group (the Docker
 * socket is root-equivalent, so only when the container runtime is wanted) and orders it after
 * docker.service.
 */
export function renderApiUnit(input: UnitInput & { containers: boolean }): string {
  return renderService({
    ...input,
    description: 'svc model server (API)',
    subcommand: 'serve',
    user: SERVICE_USER,
    envFile: LAYOUT.apiEnv,
    workingDirectory: LAYOUT.stateDir,
    after: input.containers ? ['docker.service'] : [],
    extra: input.containers ? ['SupplementaryGroups=docker'] : [],
    sandbox: [`ReadWritePaths=${LAYOUT.configDir} ${LAYOUT.stateDir}`],
  })
}

/**
 * `svc-chat.service`: `svc chat` as its own user (svc-chat), after the API. It is the part of svc
 * that renders what users and models send, so it gets the narrowest sandbox: it writes only its
 * state dir, sees nothing of /etc/svc (systemd reads its env file before the sandbox is set up) or
 * of the API's state, holds no capability, sees no devices and no other user's processes, and may
 * open only IP and unix sockets. Not `MemoryDenyWriteExecute`: Node's JIT needs W+X pages.
 */
export function renderChatUnit(input: UnitInput): string {
  return renderService({
    ...input,
    description: 'svc chat app',
    subcommand: 'chat',
    user: CHAT_USER,
    envFile: LAYOUT.chatEnv,
    workingDirectory: LAYOUT.chatStateDir,
    after: ['svc-api.service'],
    extra: [],
    sandbox: [
      `ReadWritePaths=${LAYOUT.chatStateDir}`,
      `InaccessiblePaths=${LAYOUT.configDir} ${LAYOUT.stateDir}`,
      ...NARROW,
    ],
  })
}

/**
 * `svc-auth.service`: `svc auth-gate`, which Caddy asks to check the admin password (a rate limit
 * Caddy's own basic auth lacks). As svc (it reads the users file and the proxy secret, both the
 * API's), with api.env; it writes nothing and sees no state, and is sandboxed like the chat app.
 */
export function renderGateUnit(input: UnitInput): string {
  return renderService({
    ...input,
    description: 'svc auth gate (checks the admin password for the reverse proxy)',
    subcommand: 'auth-gate',
    user: SERVICE_USER,
    envFile: LAYOUT.apiEnv,
    workingDirectory: '/',
    after: [],
    extra: [],
    sandbox: [`InaccessiblePaths=${LAYOUT.stateDir} ${LAYOUT.chatStateDir}`, ...NARROW],
  })
}

/** The narrow sandbox of the chat app and the auth gate (beyond the common hardening). */
const NARROW = [
  'CapabilityBoundingSet=',
  'AmbientCapabilities=',
  'PrivateDevices=yes',
  'ProtectProc=invisible',
  'ProtectKernelLogs=yes',
  'ProtectClock=yes',
  'ProtectHostname=yes',
  'RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX',
  'RestrictNamespaces=yes',
  'RestrictRealtime=yes',
  'SystemCallArchitectures=native',
  'SystemCallFilter=@system-service',
  'SystemCallFilter=~@privileged',
  'UMask=0077',
]

/**
 * The drop-in that points the distribution's caddy.service at svc's Caddyfile. Without Debian's
 * `--environ`, which would print the service's environment into the journal.
 */
export function renderCaddyDropIn(caddy: string): string {
  return `# Written by \`svc install --auth=basic\`: Caddy serves svc's reverse proxy config.
# \`svc install --auth=off\` removes this file and disables caddy.service.
[Service]
ExecStart=
ExecStart=${caddy} run --config ${LAYOUT.caddyfile} --adapter caddyfile
ExecReload=
ExecReload=${caddy} reload --config ${LAYOUT.caddyfile} --adapter caddyfile --force
`
}
