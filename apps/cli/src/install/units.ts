import { LAYOUT, SERVICE_USER } from './layout'

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
  subcommand: 'serve' | 'chat'
  envFile: string
  after: string[]
  extra: string[]
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
User=${SERVICE_USER}
Group=${SERVICE_USER}
${spec.extra.map((l) => `${l}\n`).join('')}EnvironmentFile=${spec.envFile}
ExecStart=${spec.node} ${spec.cli} ${spec.subcommand}
WorkingDirectory=${LAYOUT.stateDir}
Restart=on-failure
RestartSec=2
# SIGTERM drains requests (SVC_DRAIN_SECONDS) and stops the upstreams svc started.
TimeoutStopSec=45

# Hardening: nothing but the config and state dirs is writable, no privilege gain.
NoNewPrivileges=yes
ProtectSystem=strict
ReadWritePaths=${LAYOUT.configDir} ${LAYOUT.stateDir}
ProtectHome=${spec.protectHome}
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
    envFile: LAYOUT.apiEnv,
    after: input.containers ? ['docker.service'] : [],
    extra: input.containers ? ['SupplementaryGroups=docker'] : [],
  })
}

/** `svc-chat.service`: `svc chat` as the svc user, after the API. */
export function renderChatUnit(input: UnitInput): string {
  return renderService({
    ...input,
    description: 'svc chat app',
    subcommand: 'chat',
    envFile: LAYOUT.chatEnv,
    after: ['svc-api.service'],
    extra: [],
  })
}

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
