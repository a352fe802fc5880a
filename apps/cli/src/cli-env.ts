/**
 * The CLI's variables that have a form, each parsed by one function from its declared default
 * (env-variables.ts). `checkCliEnv` runs them all when the CLI starts (defaultContext), so a wrong value
 * is an error naming the variable before any command runs, whichever command would read it. Each
 * throws an Error whose message is fit for a person.
 */
import { envFlag, envPort } from '@svc/core/node'
import { cliFallback, cliVar } from './env-variables'

type Env = Readonly<Record<string, string | undefined>>

/** `SVC_API_URL` without a trailing slash: an http(s) URL. */
export function apiUrlOf(env: Env): string {
  const raw = cliVar(env, 'SVC_API_URL')
  const url = (raw || cliFallback('SVC_API_URL')).replace(/\/+$/, '')
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
    throw new Error(`SVC_API_URL must be an http(s) URL, got "${raw}"`)
  return url
}

/** `SVC_START_CHAT`: whether `svc start` starts the chat app too. */
export function startChatOf(env: Env): boolean {
  return envFlag('SVC_START_CHAT', cliVar(env, 'SVC_START_CHAT'), cliFallback('SVC_START_CHAT') === '1')
}

/** `SVC_AUTH_GATE_PORT`: where `svc auth-gate` listens on 127.0.0.1. */
export function authGatePortOf(env: Env): number {
  const fallback = Number(cliFallback('SVC_AUTH_GATE_PORT'))
  return envPort('SVC_AUTH_GATE_PORT', cliVar(env, 'SVC_AUTH_GATE_PORT'), fallback)
}

/** Checks every CLI variable with a form; throws naming the first wrong one. */
export function checkCliEnv(env: Env): { apiUrl: string } {
  startChatOf(env)
  authGatePortOf(env)
  return { apiUrl: apiUrlOf(env) }
}
