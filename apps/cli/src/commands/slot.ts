import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { readSse } from '@svc/core'
import { apiError, bearer, callApi } from '../api-client'
import type { SlotView } from '../api-types'
import { type CliContext, CliError, type Command } from '../context'
import { table } from '../format'
import { LoadDisplay } from '../load-display'
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

Exit status: 0 when the slot reached the wanted state, 1 with the error otherwise.`

export const slotCommand: Command = {
  name: 'slot',
  summary: 'load, unload and list slots',
  help: HELP,
  run: runSubcommand(HELP, { load, unload, ls: list, list }),
}

async function load(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      model: { type: 'string', short: 'm' },
      sha256: { type: 'string' },
      mmproj: { type: 'string' },
    },
    allowPositionals: true,
  })
  const slot = positionals[0]
  if (!slot)
    throw new CliError('usage: svc slot load <slot> [--model <id>] [--sha256 <hex>] [--mmproj <file>]', 2)
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
    if (res.status !== 200) throw apiError(res)
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
  const slot = args[0]
  if (!slot) throw new CliError('usage: svc slot unload <slot>', 2)
  const res = await callApi<SlotView>(ctx, `/api/slots/${encodeURIComponent(slot)}/unload?wait=true`, {
    method: 'POST',
  })
  if (res.status !== 200) throw apiError(res)
  ctx.stdout.write(`${slot} is offline\n`)
  return 0
}

async function list(_args: string[], ctx: CliContext): Promise<number> {
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
