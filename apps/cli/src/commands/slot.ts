import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { readSse } from '@svc/core'
import { apiError, bearer, callApi } from '../api-client'
import type { SlotView } from '../api-types'
import { type CliContext, type Command, UsageError } from '../context'
import { table } from '../format'
import { LoadDisplay } from '../load-display'
import { modelError } from '../model-suggestion'
import { parseOptions } from '../parse-options'
import { runSubcommand } from '../subcommands'

const HELP = `Usage: svc slot <subcommand>   (also: slot <subcommand>)

  svc slot load <slot> [--model <id>] [--sha256 <hex>] [--mmproj <file>]
                                      load a model and follow it until ready
                                      <id>: a curated id, a registry ref, a path to a .gguf, or an http(s) URL;
                                      without --model: the slot's default model (a remote slot: the
                                      first model its remote serves)
                                      --sha256: with a URL, what the pulled file must hash to
                                      --mmproj: the vision projector (path or URL) of a .gguf given by path or URL
  svc slot unload <slot>              unload (in-flight requests may finish first)
  svc slot ls                         list slots as a table

Every subcommand takes --url URL: the API to talk to (else SVC_API_URL, default http://127.0.0.1:8080).
Exit status: 0 when the slot reached the wanted state, 1 with the error otherwise.`

export const slotCommand: Command = {
  name: 'slot',
  summary: 'load, unload and list slots',
  help: HELP,
  api: true,
  run: runSubcommand('svc slot', HELP, { load, unload, ls: list, list }),
}

const LOAD_USAGE =
  'usage: svc slot load <slot> [--model <id>] [--sha256 <hex>] [--mmproj <file>] (more: svc slot --help)'

async function load(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseOptions('svc slot load', LOAD_USAGE, args, {
    model: { type: 'string', short: 'm' },
    sha256: { type: 'string' },
    mmproj: { type: 'string' },
  })
  const slot = positionals[0]
  if (!slot) throw new UsageError('svc slot load', 'which slot? (svc slot ls lists them)', LOAD_USAGE)
  if (positionals.length > 1)
    throw new UsageError('svc slot load', `unexpected argument ${positionals[1]}`, LOAD_USAGE)
  const display = new LoadDisplay(ctx.stdout, slot)
  const events = new AbortController()
  const started = Date.now()
  const follow = followEvents(ctx, slot, display, events.signal)
  try {
    await follow.ready
    const res = await callApi<SlotView>(ctx, `/api/slots/${encodeURIComponent(slot)}/load?wait=true`, {
      method: 'POST',
      body: JSON.stringify({
        ...(values.model ? { model: localPath(values.model) } : {}),
        ...(values.sha256 ? { sha256: values.sha256 } : {}),
        ...(values.mmproj ? { mmproj: localPath(values.mmproj) } : {}),
      }),
    })
    display.end()
    if (res.status !== 200) throw values.model ? await modelError(ctx, res, values.model) : apiError(res)
    ctx.stdout.write(
      `${slot} is ready with ${res.body.model} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`,
    )
    return 0
  } finally {
    display.end()
    events.abort()
    await follow.done.catch(() => undefined)
  }
}

/**
 * A file named relative to where the CLI runs is sent as an absolute path: the API resolves paths
 * against its own working directory, which is not the user's.
 */
function localPath(spec: string): string {
  if (/^https?:\/\//i.test(spec) || !(spec.startsWith('.') || spec.includes('/'))) return spec
  const path = resolve(spec)
  return existsSync(path) ? path : spec
}

async function unload(args: string[], ctx: CliContext): Promise<number> {
  const usage = 'usage: svc slot unload <slot>'
  const { positionals } = parseOptions('svc slot unload', usage, args, {})
  const slot = positionals[0]
  if (!slot || positionals.length > 1)
    throw new UsageError(
      'svc slot unload',
      slot ? `unexpected argument ${positionals[1]}` : 'which slot?',
      usage,
    )
  const res = await callApi<SlotView>(ctx, `/api/slots/${encodeURIComponent(slot)}/unload?wait=true`, {
    method: 'POST',
  })
  if (res.status !== 200) throw apiError(res)
  ctx.stdout.write(`${slot} is offline\n`)
  return 0
}

async function list(args: string[], ctx: CliContext): Promise<number> {
  parseOptions('svc slot ls', 'usage: svc slot ls', args, {}, { positionals: false })
  const res = await callApi<{ slots: SlotView[] }>(ctx, '/api/slots')
  if (res.status !== 200) throw apiError(res)
  ctx.stdout.write(
    table(
      ['SLOT', 'PROVIDER', 'BACKEND', 'RUNTIME', 'STATE', 'MODEL', 'INFLIGHT', 'LAST ERROR'],
      res.body.slots.map((s) => [
        s.name,
        s.provider,
        s.backend,
        s.runtime,
        s.state,
        s.model,
        s.inflight,
        s.lastError,
      ]),
    ),
  )
  return 0
}

/** Follows `/api/events` for one slot; `ready` resolves once the stream is open (snapshot seen). */
function followEvents(ctx: CliContext, slot: string, display: LoadDisplay, signal: AbortSignal) {
  let markReady!: () => void
  const ready = new Promise<void>((r) => {
    markReady = r
  })
  const done = (async () => {
    try {
      const headers = bearer(ctx)
      const res = await fetch(`${ctx.apiUrl}/api/events`, { signal, headers })
      if (!res.ok || !res.body) return
      for await (const e of readSse(res.body)) {
        if (e.event === 'snapshot') markReady()
        const data = JSON.parse(e.data) as {
          slot?: string
          to?: string
          model?: string | null
          done?: number
          total?: number | null
          slots?: { name: string; state: string; model: string | null }[]
        }
        if (e.event === 'resync') {
          // The stream dropped events this client was too slow for: take the state as it is now.
          const now = data.slots?.find((s) => s.name === slot)
          if (now) display.transition(now.state, now.model)
          continue
        }
        if (data.slot !== slot) continue
        if (e.event === 'slot.transition' && data.to) display.transition(data.to, data.model ?? null)
        if (e.event === 'slot.progress') display.progress(data.done ?? 0, data.total ?? null)
      }
    } finally {
      markReady() // the load proceeds without live display if the stream is unavailable
    }
  })()
  return { ready, done }
}
