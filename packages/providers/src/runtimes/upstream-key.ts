/**
 * A key of svc's own for each upstream it starts on this machine: a port on 127.0.0.1 is open to
 * every local process, and an upstream without a key would let any of them use the engine directly,
 * past svc's tokens, scopes and limits. The runtime makes one per start and offers it to the provider
 * (`SlotContext.apiKey`); a provider whose engine takes a key passes it in the upstream's environment
 * (never argv: that is in `ps` for everyone). The key is the upstream's only where the provider did
 * that: the dispatcher then sends it as `Authorization: Bearer`, and nothing else shows it.
 */
import { randomBytes } from 'node:crypto'

/** 32 random bytes, base64url. */
export function newUpstreamKey(): string {
  return randomBytes(32).toString('base64url')
}

/** The env variable the provider put `key` in, or undefined when it put it nowhere (no key then). */
export function keyEnvName(env: Readonly<Record<string, string>>, key: string): string | undefined {
  for (const [name, value] of Object.entries(env)) if (value === key) return name
  return undefined
}

/** The value of `name` in a container's `Env` list (`NAME=value`). */
export function envValue(env: readonly string[] | undefined, name: string | undefined): string | undefined {
  if (!name || !env) return undefined
  const prefix = `${name}=`
  return env.find((e) => e.startsWith(prefix))?.slice(prefix.length)
}
