import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { Effects } from './effects'
import { which } from './exec'
import {
  API_UNIT,
  CADDY_USER,
  CHAT_UNIT,
  CHAT_USER,
  GATE_UNIT,
  LAYOUT,
  PROXY_UNIT,
  SERVICE_USER,
} from './layout'

/** What should run after this install: the units to (re)start and the units to stop for good. */
export interface ServicePlan {
  /** Enabled and (re)started, in this order. */
  start: string[]
  /** Disabled and stopped. */
  stop: string[]
}

export interface ServiceContext {
  env: Record<string, string | undefined>
  node: string
  cli: string
  caddy?: string
  /** Home of the caddy user: Caddy keeps its CA and certificates under it. */
  caddyHome: string
  /** Whether Caddy listens on ports below 1024 (then it needs CAP_NET_BIND_SERVICE). */
  privilegedPorts: boolean
}

/** True when systemd is the running init (sd_booted(3): /run/systemd/system exists). */
export function systemdRunning(): boolean {
  return existsSync('/run/systemd/system')
}

/**
 * Applies `plan` with systemd when it runs; on a staging root (`--root`) or where systemd does not
 * run, enables the units offline (`systemctl --root`) where systemctl exists and prints the exact
 * commands that start the services instead. Returns those commands (empty when it started them).
 */
export async function applyServices(fx: Effects, plan: ServicePlan, ctx: ServiceContext): Promise<string[]> {
  const systemctl = which('systemctl', ctx.env.PATH)
  if (fx.root === '/' && systemctl && systemdRunning()) {
    await fx.run([systemctl, 'daemon-reload'], 'load the new units')
    if (plan.stop.length) await fx.run([systemctl, 'disable', '--now', ...plan.stop], 'stop the proxy')
    await fx.run([systemctl, 'enable', ...plan.start], 'start at boot')
    await fx.run([systemctl, 'restart', ...plan.start], 'start with the new settings')
    return []
  }
  if (systemctl) {
    // svc's own units are there (or would be, in a dry run); the proxy's comes with Caddy's package
    const known = (unit: string) => [API_UNIT, CHAT_UNIT, GATE_UNIT].includes(unit) || unitExists(fx, unit)
    const stop = plan.stop.filter(known)
    const start = plan.start.filter(known)
    if (stop.length) await fx.run([systemctl, `--root=${fx.root}`, 'disable', ...stop], 'off at boot')
    if (start.length) await fx.run([systemctl, `--root=${fx.root}`, 'enable', ...start], 'start at boot')
    for (const unit of [...plan.start, ...plan.stop].filter((u) => !known(u)))
      fx.note(`note: ${unit} is not installed in ${fx.local('/')}: enable it there yourself`)
  }
  if (fx.root !== '/') {
    return [
      'systemctl daemon-reload',
      ...(plan.stop.length ? [`systemctl disable --now ${plan.stop.join(' ')}`] : []),
      `systemctl restart ${plan.start.join(' ')}`,
    ]
  }
  return startCommands(plan, ctx)
}

/** Commands that start the services by hand where systemd does not run (a container). */
function startCommands(plan: ServicePlan, ctx: ServiceContext): string[] {
  const asUser = (user: string, envFile: string, sub: string) =>
    `runuser -u ${user} -- sh -c 'set -a; . ${envFile}; exec ${ctx.node} ${ctx.cli} ${sub}' &`
  const out: string[] = []
  if (plan.stop.includes(PROXY_UNIT))
    out.push('# stop the caddy and svc auth-gate processes you started for svc, if any')
  for (const unit of plan.start) {
    if (unit === API_UNIT) out.push(asUser(SERVICE_USER, LAYOUT.apiEnv, 'serve'))
    if (unit === CHAT_UNIT) out.push(asUser(CHAT_USER, LAYOUT.chatEnv, 'chat'))
    if (unit === GATE_UNIT) out.push(asUser(SERVICE_USER, LAYOUT.apiEnv, 'auth-gate'))
    if (unit === PROXY_UNIT) {
      const run = `${ctx.caddy ?? 'caddy'} run --config ${LAYOUT.caddyfile} --adapter caddyfile`
      // as the caddy user (its CA and certificates stay in its home), with the one capability it needs
      out.push(
        ctx.privilegedPorts
          ? `setpriv --reuid=${CADDY_USER} --regid=${CADDY_USER} --init-groups --inh-caps=+net_bind_service --ambient-caps=+net_bind_service env HOME=${ctx.caddyHome} ${run} &`
          : `runuser -u ${CADDY_USER} -- ${run} &`,
      )
    }
  }
  return out
}

function unitExists(fx: Effects, unit: string): boolean {
  return ['/etc/systemd/system', '/usr/lib/systemd/system', '/lib/systemd/system'].some((d) =>
    fx.exists(join(d, unit)),
  )
}
