/** `svc doctor`: the API itself, its auth mode, and the container engine (optional). */
import type { HardwareFacts } from '@svc/providers'
import { callApi } from '../api-client'
import type { CliContext } from '../context'
import type { Finding } from './finding'

/** Whether the API answers at `ctx.apiUrl`, and its auth mode when it does. */
export async function checkApi(ctx: CliContext, up: boolean): Promise<Finding[]> {
  if (!up)
    return [
      {
        mark: 'warn',
        text: `API: nothing answers at ${ctx.apiUrl} (the slot checks below read this machine and the slot files instead)`,
        fix: 'start it: svc start (pnpm start), or point at a running one with --url URL',
      },
      {
        mark: 'ok',
        text: 'auth: known once the API runs (off unless its environment sets SVC_AUTH_ENABLED=1; svc install --auth=basic turns it on)',
      },
    ]
  const status = await callApi<{ version?: string; auth?: string }>(ctx, '/api/status').catch(() => undefined)
  const auth = await callApi<{ enabled?: boolean; mode?: string }>(ctx, '/api/auth/status').catch(
    () => undefined,
  )
  const api: Finding = {
    mark: 'ok',
    text: `API: svc ${status?.body?.version ?? '?'} answers at ${ctx.apiUrl}`,
  }
  if (auth?.status !== 200)
    return [api, { mark: 'warn', text: `auth: the API did not say (HTTP ${auth?.status ?? '?'})` }]
  return [
    api,
    auth.body.enabled
      ? {
          mark: 'ok',
          text: `auth: on (${auth.body.mode ?? 'proxy+token'}): the API checks tokens and the proxy's sign-in`,
        }
      : {
          mark: 'ok',
          text: 'auth: off: anyone who reaches the API may use it, and no token is checked (fine on a trusted machine; svc install --auth=basic turns it on, see docs/auth.md)',
        },
  ]
}

/** The container engine (DOCKER_HOST): only container and swarm slots need one, so never a failure. */
export function checkContainerEngine(facts: Pick<HardwareFacts, 'container'>): Finding {
  if (facts.container.ok)
    return {
      mark: 'ok',
      text: `container engine: ${facts.container.version ? `version ${facts.container.version}` : 'answers'}${facts.container.swarm === 'manager' ? ' (a swarm manager)' : ''}`,
    }
  return {
    mark: 'warn',
    text: `Docker not found (${facts.container.error ?? 'no answer'}) — only needed for container slots`,
    fix: "nothing, unless a slot should run in a container: install Docker (or podman's socket) and point DOCKER_HOST at it",
  }
}
