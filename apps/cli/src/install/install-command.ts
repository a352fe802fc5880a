import { fileURLToPath } from 'node:url'
import { type CliContext, CliError, type Command } from '../context'
import { BUILT_CLI, missingBuild } from '../server-entries'
import { caRootPath, type InstalledCaddy } from './caddy'
import { moveChatState } from './chat-state'
import { rotateChatToken } from './chat-token'
import { Effects } from './effects'
import { installEngines } from './engines'
import { mergeEnvFile, parseEnvFile } from './env-file'
import { type InstallArgs, parseInstallArgs } from './install-args'
import { type InstallState, readInstallState, writeInstallState } from './install-state'
import {
  API_UNIT,
  CADDY_USER,
  CHAT_UNIT,
  CHAT_USER,
  DEFAULT_PORTS,
  GATE_UNIT,
  LAYOUT,
  PROXY_UNIT,
  SERVICE_USER,
} from './layout'
import { publishName, unpublishName } from './mdns'
import { type AuthInputs, ensureCaddy, readAuthInputs, renderProxy } from './proxy-config'
import { readableByOthers } from './readable'
import { API_ENV_HEADER, apiEnv, CHAT_ENV_HEADER, chatEnv, selfManagingEnv } from './service-env'
import { applyServices, type ServicePlan } from './services'
import { ensureServiceUsers } from './system-user'
import { protectHomeFor, renderApiUnit, renderCaddyDropIn, renderChatUnit, renderGateUnit } from './units'
import { readUserDb } from './user-db'

const CHECKOUT = fileURLToPath(new URL('../../../../', import.meta.url))
// The services run the build (plain JavaScript, no TypeScript loader in production).
const CLI = BUILT_CLI

const HELP = `Usage: svc install [--auth=basic|off] [--root DIR] [--dry-run] [options]

Installs svc as system services (run as root): the svc system user, ${LAYOUT.stateDir} owned by
it, ${LAYOUT.configDir} (root:svc, sticky: svc writes its own files there, never root's),
${API_UNIT} (svc serve) and ${CHAT_UNIT} (svc chat) running this
checkout with ${process.execPath}, and their environment files ${LAYOUT.apiEnv} and
${LAYOUT.chatEnv}. Safe to run again; lines you add to the env files are kept.

  --auth=basic   Caddy in front, with basic auth and HTTPS: installs Caddy with the package manager
                 (apt, dnf, pacman, zypper, apk) when missing, renders ${LAYOUT.caddyfile}, sets
                 new proxy secrets and a new token for the chat app, starts ${GATE_UNIT} (checks
                 the password for Caddy, 10 failures per client, then one every 6 s) and
                 caddy.service on ports 80 and 443 and restarts svc. Running it again rotates the password and the secret.
                 Inputs: SVC_ADMIN_USER (default admin), the password (below, else asked twice on
                 a terminal), SVC_HOSTNAME (default <hostname>.local), SVC_TLS_EMAIL (public names).
  --admin-password-file PATH   the admin password is the content of PATH (one final newline dropped)
  --admin-password-stdin       the admin password is standard input, e.g. from a password manager
                 (SVC_ADMIN_PASSWORD works too, but \`sudo SVC_ADMIN_PASSWORD=… svc install\` shows
                 it to every local user in \`ps\`: sudo's arguments are public)
  --auth=off     Back to no auth: stops and disables the proxy, the API listens on all addresses
                 again. The Caddyfile and Caddy's certificates stay on disk.
  (no --auth)    Keeps the auth mode of the last run.
  --root DIR     Writes everything under DIR (a staging root for packaging); creates the user and
                 enables the units there, starts nothing and installs no packages.
  --dry-run      Prints what would change and changes nothing.
  --api-port N, --chat-port N      where the API (8080) and the chat app (3001) listen (loopback)
  --gate-port N                    where the auth gate (svc-auth.service, 3002) listens (loopback)
  --http-port N, --https-port N    Caddy's ports (80, 443)
  --containers, --no-containers    let the API use Docker (adds the docker group to ${API_UNIT};
                                   that group is root-equivalent); default off, remembered
  --load-on-request, --no-load-on-request   a request for a model no slot holds loads it into the
                 slot of its role, for every slot whose file does not say otherwise
                 (SVC_LOAD_ON_REQUEST=1 in ${LAYOUT.apiEnv}); default off, remembered
  --unload-after DURATION   unload a slot after this long without a request ("15m", "90s", "2h";
                 0: never, the default); SVC_UNLOAD_AFTER in ${LAYOUT.apiEnv}, remembered.
                 See docs/self-managing-slots.md.

Where systemd does not run (a container), it does all the rest and prints the commands that start
the services. See docs/auth.md#turning-auth-on.`

export const installCommand: Command = {
  name: 'install',
  summary: 'install svc as system services; --auth=basic puts Caddy (basic auth, HTTPS) in front',
  help: HELP,
  run: (args, ctx) => install(parseInstallArgs(args), ctx),
}

async function install(args: InstallArgs, ctx: CliContext): Promise<number> {
  // The password is read from ctx.env once; no program the installer runs gets it in its environment.
  const { SVC_ADMIN_PASSWORD: _password, ...env } = ctx.env
  if (args.root === '/' && !args.dryRun && process.getuid?.() !== 0) {
    throw new CliError('svc install changes the system: run it as root, or see --dry-run and --root DIR')
  }
  // The units run the build: without one the services could not start.
  const unbuilt = missingBuild()
  if (unbuilt.length > 0 && args.root === '/' && !args.dryRun) {
    throw new CliError(
      `svc is not built (${unbuilt[0]} is missing): run pnpm build (./scripts/setup.sh does it) first`,
    )
  }
  const say = (line = '') => ctx.stdout.write(`${line}\n`)
  const fx = new Effects({ root: args.root, dryRun: args.dryRun, env, log: (l) => say(`  ${l}`) })
  const previous = readInstallState(fx)
  const auth = args.auth ?? previous?.auth ?? 'off'
  const ports = {
    api: args.ports.api ?? previous?.ports.api ?? DEFAULT_PORTS.api,
    chat: args.ports.chat ?? previous?.ports.chat ?? DEFAULT_PORTS.chat,
    gate: args.ports.gate ?? previous?.ports.gate ?? DEFAULT_PORTS.gate,
    http: args.ports.http ?? previous?.ports.http ?? DEFAULT_PORTS.http,
    https: args.ports.https ?? previous?.ports.https ?? DEFAULT_PORTS.https,
  }
  const containers = args.containers ?? previous?.containers ?? false
  // A re-run without --auth keeps a basic-auth proxy as it is (its password is not known here).
  const rotate = auth === 'basic' && args.auth === 'basic'

  // Everything that can fail for a reason the user can fix is checked before the first change.
  let inputs: AuthInputs | undefined
  let caddy: InstalledCaddy | undefined
  let kept: KeptSecrets | undefined
  if (rotate) {
    inputs = await readAuthInputs(ctx.env, {
      ...(previous ? { previous } : {}),
      ...(args.passwordFrom ? { passwordFrom: args.passwordFrom } : {}),
      io: ioOf(ctx),
      dryRun: args.dryRun,
    })
    say(
      `svc install: auth basic at https://${hostPort(inputs.hostname, ports.https)}/${args.dryRun ? ' (dry run: nothing is changed)' : ''}`,
    )
    caddy = await ensureCaddy(fx, env)
  } else {
    if (auth === 'basic') {
      // the proxy config names the ports; it is only rendered (with the password) by --auth=basic
      if (
        previous &&
        !samePorts(ports, { ...previous.ports, gate: previous.ports.gate ?? DEFAULT_PORTS.gate })
      )
        throw new CliError(
          'auth is basic: change ports together with --auth=basic (the proxy config names them)',
          2,
        )
      kept = keptSecrets(fx)
    }
    say(`svc install: auth ${auth}${args.dryRun ? ' (dry run: nothing is changed)' : ''}`)
  }
  const rendered = inputs ? await renderProxy(inputs, { caddy, ports, env }) : undefined
  if (rotate && !args.dryRun && readUserDb(fx.root).uid(CADDY_USER) === undefined) {
    throw new CliError(
      `there is no ${CADDY_USER} user in ${fx.local('/etc/passwd')}: is Caddy's package installed there?`,
    )
  }
  const warnings = checkReadable([CHECKOUT, process.execPath])
  if (unbuilt.length > 0)
    warnings.push(`svc is not built: the services need ${unbuilt.join(', ')} (pnpm build)`)

  await ensureServiceUsers(fx, env)
  await fx.mkdir(LAYOUT.configDir, CONFIG_DIR_OWNER)
  await fx.mkdir(LAYOUT.stateDir, { mode: 0o750, user: SERVICE_USER, group: SERVICE_USER })
  await fx.mkdir(LAYOUT.chatStateDir, { mode: 0o700, user: CHAT_USER, group: CHAT_USER })
  await moveChatState(fx)
  // Made on every run, before the services ever start, so the svc user can never make it first.
  await fx.mkdir(LAYOUT.caddyIncludes, root755, { foreign: 'refuse' })

  let chatToken: string | undefined
  if (rotate) chatToken = await rotateChatToken(fx, true)
  else if (auth === 'off') await rotateChatToken(fx, false)
  else chatToken = kept?.chatToken

  const hints: string[] = []
  if (rendered && inputs) {
    await fx.write(LAYOUT.caddyfile, rendered.caddyfile, { mode: 0o640, user: 'root', group: CADDY_USER })
    // the auth gate (svc user) reads it; root's, so the svc user cannot change the password
    await fx.write(LAYOUT.gateUsers, `${inputs.user}:${rendered.passwordHash}\n`, {
      mode: 0o640,
      user: 'root',
      group: SERVICE_USER,
    })
    await fx.write(LAYOUT.caddyDropIn, renderCaddyDropIn(caddy?.path ?? '/usr/bin/caddy'), root644)
    if (inputs.tls === 'internal') hints.push(...(await publishName(fx, inputs.hostname, ports.https)))
  } else if (auth === 'off') {
    await fx.remove(LAYOUT.caddyDropIn)
    await unpublishName(fx)
  }

  const unit = {
    node: process.execPath,
    cli: CLI,
    readme: `${CHECKOUT}README.md`,
    protectHome: protectHomeFor([CHECKOUT, process.execPath]),
  }
  await fx.write(`${LAYOUT.unitDir}/${API_UNIT}`, renderApiUnit({ ...unit, containers }), root644)
  await fx.write(`${LAYOUT.unitDir}/${CHAT_UNIT}`, renderChatUnit(unit), root644)
  await fx.write(`${LAYOUT.unitDir}/${GATE_UNIT}`, renderGateUnit(unit), root644)

  const previousApiEnv = parseEnvFile(fx.read(LAYOUT.apiEnv) ?? '')
  const engines = await installEngines(fx, env, previousApiEnv)
  hints.push(...engines.hints)

  const proxySecret = rendered?.proxySecret ?? kept?.proxySecret
  const chatProxySecret = rendered?.chatProxySecret ?? kept?.chatProxySecret
  if (kept && kept.chatProxySecret === kept.proxySecret)
    warnings.push(
      'warning: the chat app still shares the API’s proxy secret (an install by an older svc): run svc install --auth=basic to give it its own',
    )
  const envInput = {
    auth,
    ports,
    engines: engines.env,
    selfManaging: selfManagingEnv(args),
    ...(proxySecret ? { proxySecret } : {}),
    ...(chatProxySecret ? { chatProxySecret } : {}),
    ...(chatToken ? { chatToken } : {}),
  }
  // Each env file is readable by its own service's group only (the fallback start commands source
  // it as that user): the chat app's user can read neither api.env nor the API's secret.
  await fx.write(LAYOUT.apiEnv, mergeEnvFile(fx.read(LAYOUT.apiEnv), apiEnv(envInput), API_ENV_HEADER), {
    mode: 0o640,
    user: 'root',
    group: SERVICE_USER,
  })
  await fx.write(LAYOUT.chatEnv, mergeEnvFile(fx.read(LAYOUT.chatEnv), chatEnv(envInput), CHAT_ENV_HEADER), {
    mode: 0o640,
    user: 'root',
    group: CHAT_USER,
  })

  const state: InstallState = {
    auth,
    containers,
    ports,
    ...(inputs
      ? {
          hostname: inputs.hostname,
          adminUser: inputs.user,
          ...(inputs.email ? { tlsEmail: inputs.email } : {}),
        }
      : pick(previous)),
  }
  await writeInstallState(fx, state)

  const plan: ServicePlan =
    auth === 'basic'
      ? { start: [API_UNIT, CHAT_UNIT, GATE_UNIT, PROXY_UNIT], stop: [] }
      : { start: [API_UNIT, CHAT_UNIT], stop: previous?.auth === 'basic' ? [PROXY_UNIT, GATE_UNIT] : [] }
  const caddyHome = readUserDb(fx.root).home(CADDY_USER) ?? '/var/lib/caddy'
  const commands = await applyServices(fx, plan, {
    env,
    node: process.execPath,
    cli: CLI,
    ...(caddy ? { caddy: caddy.path } : {}),
    caddyHome,
    privilegedPorts: ports.http < 1024 || ports.https < 1024,
  })
  if (containers && readUserDb(fx.root).gid('docker') === undefined)
    warnings.push(
      `--containers: there is no docker group in ${fx.local('/etc/group')} yet; ${API_UNIT} will not start until Docker is installed`,
    )

  say()
  if (commands.length) {
    say(
      fx.root === '/'
        ? 'systemd is not running here. Start the services with:'
        : `In the target system (${fx.root} deployed as /), start the services with:`,
    )
    for (const c of commands) say(`  ${c}`)
    say()
  }
  if (inputs) {
    say(
      `Sign in at https://${hostPort(inputs.hostname, ports.https)}/ as "${inputs.user}" (the chat app: /chat/).`,
    )
    say(
      `Programs use https://${hostPort(inputs.hostname, ports.https)}/v1 with a token: svc token create --label NAME`,
    )
    if (inputs.tls === 'internal') {
      say(`HTTPS comes from Caddy's own CA. Each client must trust its root certificate, made when Caddy`)
      say(`first starts: ${caRootPath(caddyHome)} (docs/auth.md#trusting-the-certificate).`)
    } else {
      say(
        `The certificate comes from Let's Encrypt or ZeroSSL: DNS for ${inputs.hostname} must point here and`,
      )
      say('ports 80 and 443 must be reachable (or use the DNS-01 challenge: docs/auth.md#a-public-name).')
    }
  } else if (auth === 'off' && previous?.auth === 'basic') {
    say(
      `Auth is off: the API listens on all addresses, port ${ports.api}. ${LAYOUT.caddyfile} and Caddy's certificates stay on disk.`,
    )
  }
  for (const line of [...hints, ...warnings]) say(line)
  return 0
}

const root644 = { mode: 0o644, user: 'root', group: 'root' }
const root755 = { mode: 0o755, user: 'root', group: 'root' }
/**
 * `/etc/svc`: root's, group svc, sticky (1771). The svc user may create files there and replace its
 * own atomically (tokens.toml and slots/ are the API's: temp file + rename in the same directory),
 * but the sticky bit stops it from renaming, replacing or removing root's files — api.env and
 * chat.env, which systemd reads as root, the Caddyfile and caddy.d/, which Caddy trusts, and
 * install.json. Others may only pass through (Caddy reads the Caddyfile as the caddy user); nothing
 * here can be listed by them.
 */
export const CONFIG_DIR_OWNER = { mode: 0o1771, user: 'root', group: SERVICE_USER }

function samePorts(a: Record<string, number>, b: Record<string, number>): boolean {
  return Object.keys({ ...a, ...b }).every((k) => a[k] === b[k])
}

function hostPort(host: string, https: number): string {
  return https === 443 ? host : `${host}:${https}`
}

function ioOf(ctx: CliContext) {
  return ctx.stdin ? { stdin: ctx.stdin, stderr: ctx.stderr } : undefined
}

function pick(previous: InstallState | undefined): Partial<InstallState> {
  if (!previous) return {}
  const { hostname, adminUser, tlsEmail } = previous
  return {
    ...(hostname ? { hostname } : {}),
    ...(adminUser ? { adminUser } : {}),
    ...(tlsEmail ? { tlsEmail } : {}),
  }
}

interface KeptSecrets {
  proxySecret: string
  chatProxySecret: string
  chatToken: string
}

/** The secrets of a basic-auth install that is kept as it is (a re-run without --auth). */
function keptSecrets(fx: Effects): KeptSecrets {
  const proxySecret = parseEnvFile(fx.read(LAYOUT.apiEnv) ?? '').SVC_PROXY_SECRET
  const chat = parseEnvFile(fx.read(LAYOUT.chatEnv) ?? '')
  const [chatProxySecret, chatToken] = [chat.SVC_PROXY_SECRET, chat.SVC_CHAT_API_TOKEN]
  if (!proxySecret || !chatProxySecret || !chatToken) {
    const [file, key] = !proxySecret
      ? [LAYOUT.apiEnv, 'SVC_PROXY_SECRET']
      : [LAYOUT.chatEnv, chatToken ? 'SVC_PROXY_SECRET' : 'SVC_CHAT_API_TOKEN']
    throw new CliError(`${file} has no ${key}: run svc install --auth=basic again`)
  }
  return { proxySecret, chatProxySecret, chatToken }
}

/** Warnings for paths the svc user could not read (a checkout or node under a private home). */
function checkReadable(paths: string[]): string[] {
  return paths
    .filter((p) => !readableByOthers(p))
    .map(
      (p) =>
        `warning: ${p} is not readable by other users, so the svc user cannot run it; install svc in a place like /opt/svc`,
    )
}
