import * as v from 'valibot'
import type { Effects } from './effects'
import { LAYOUT } from './layout'

const Port = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(65535))

/** What the last `svc install` decided (`/etc/svc/install.json`); no secrets. */
export const InstallStateSchema = v.object({
  auth: v.picklist(['basic', 'off']),
  hostname: v.optional(v.string()),
  adminUser: v.optional(v.string()),
  tlsEmail: v.optional(v.string()),
  containers: v.boolean(),
  // gate: absent in the state of installs before the auth gate (then the default)
  ports: v.object({ api: Port, chat: Port, gate: v.optional(Port), http: Port, https: Port }),
})
export type InstallState = v.InferOutput<typeof InstallStateSchema>

/** The previous run's decisions, or undefined on a first run (or an unreadable file, which is rewritten). */
export function readInstallState(fx: Effects): InstallState | undefined {
  const text = fx.read(LAYOUT.installState)
  if (text === undefined) return undefined
  try {
    const parsed = v.safeParse(InstallStateSchema, JSON.parse(text))
    return parsed.success ? parsed.output : undefined
  } catch {
    return undefined
  }
}

export async function writeInstallState(fx: Effects, state: InstallState): Promise<void> {
  await fx.write(LAYOUT.installState, `${JSON.stringify(state, null, 2)}\n`, {
    mode: 0o644,
    user: 'root',
    group: 'root',
  })
}
