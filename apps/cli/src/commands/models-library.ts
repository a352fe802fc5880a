/**
 * `svc models search|quants|pull|rm`: the model library from the command line, over the API's routes
 * (`/api/models/search`, `/api/models/hub/<owner>/<repo>`, `POST /api/models/pull`, `DELETE
 * /api/models/<id>`). A pull follows its `model.pull` events until it ends; Ctrl-C cancels it.
 */
import type { AppType } from '@svc/api'
import { type ModelPullEvent, readSse } from '@svc/core'
import type { hc, InferResponseType } from 'hono/client'
import { apiError, bearer, callApi } from '../api-client'
import { type CliContext, CliError, UsageError } from '../context'
import { bytes, table } from '../format'
import { LoadDisplay } from '../load-display'
import { modelError } from '../model-suggestion'
import { parseOptions } from '../parse-options'

type Api = ReturnType<typeof hc<AppType>>['api']
type SearchBody = InferResponseType<Api['models']['search']['$get'], 200>
type RepoBody = InferResponseType<Api['models']['hub'][':owner'][':repo']['$get'], 200>
type PullBody = { model: string; status: string; done: number; total: number | null }

/** `svc models search <words> [--limit N]`: the Hub's GGUF repos, most downloaded first. */
export async function search(args: string[], ctx: CliContext): Promise<number> {
  const usage = 'usage: svc models search <words> [--limit N]'
  const { values, positionals } = parseOptions('svc models search', usage, args, {
    limit: { type: 'string', short: 'n' },
  })
  const query = positionals.join(' ').trim()
  if (!query) throw new UsageError('svc models search', 'search for what?', usage)
  const params = new URLSearchParams({ q: query, ...(values.limit ? { limit: values.limit } : {}) })
  const res = await callApi<SearchBody>(ctx, `/api/models/search?${params}`)
  if (res.status !== 200) throw apiError(res)
  if (res.body.models.length === 0) {
    ctx.stdout.write(`no GGUF repo on the Hub matches "${query}"\n`)
    return 0
  }
  ctx.stdout.write(
    table(
      ['REPO', 'DOWNLOADS', 'LIKES', 'UPDATED', 'ACCESS'],
      res.body.models.map((m) => [
        m.id,
        m.downloads,
        m.likes,
        m.updated?.slice(0, 10),
        m.private ? 'private' : m.gated ? 'gated (HF_TOKEN)' : 'open',
      ]),
    ),
  )
  ctx.stdout.write(
    `\nsee a repo's quants: svc models quants <repo>; pull one: svc models pull hf.co/<repo>:<quant>\n`,
  )
  return 0
}

/** `svc models quants <owner>/<repo> [--slot S]`: a repo's quants, sizes and whether each fits here. */
export async function quants(args: string[], ctx: CliContext): Promise<number> {
  const usage = 'usage: svc models quants <owner>/<repo> [--slot <slot>]'
  const { values, positionals } = parseOptions('svc models quants', usage, args, { slot: { type: 'string' } })
  const repo = positionals[0]?.replace(/^(hf\.co|huggingface\.co)\/|^hf:/, '').replace(/:.*$/, '')
  const [owner, name, extra] = repo?.split('/') ?? []
  if (!owner || !name || extra !== undefined)
    throw new UsageError('svc models quants', 'name one repo as <owner>/<repo>', usage)
  const query = values.slot ? `?slot=${encodeURIComponent(values.slot)}` : ''
  const res = await callApi<RepoBody>(
    ctx,
    `/api/models/hub/${encodeURIComponent(owner)}/${encodeURIComponent(name)}${query}`,
  )
  if (res.status !== 200) throw apiError(res)
  const r = res.body
  const facts = [
    r.architecture,
    r.layers !== null ? `${r.layers} layers` : null,
    r.context_length !== null ? `context ${r.context_length}` : null,
    r.mmproj.length > 0 ? 'vision (projector comes along)' : null,
  ].filter(Boolean)
  ctx.stdout.write(`${r.repo}${facts.length ? `: ${facts.join(', ')}` : ''}\n`)
  if (r.header_error) ctx.stdout.write(`(${r.header_error})\n`)
  ctx.stdout.write(
    table(
      ['NAME', 'SIZE', 'NEEDS', 'FITS', 'ON DISK'],
      r.quants.map((q) => [
        q.name,
        bytes(q.size),
        bytes(q.need),
        q.fits === null ? '?' : q.fits ? 'yes' : 'no',
        q.present ? 'yes' : 'no',
      ]),
    ),
  )
  return 0
}

/** `svc models pull <name>`: downloads without loading, shows progress, Ctrl-C cancels. */
export async function pull(args: string[], ctx: CliContext): Promise<number> {
  const { positionals } = parseOptions('svc models pull', 'usage: svc models pull <name>', args, {})
  const model = positionals[0]
  if (!model || positionals.length > 1)
    throw new UsageError(
      'svc models pull',
      model ? `unexpected argument ${positionals[1]}` : 'pull what?',
      'usage: svc models pull <name>',
    )
  const events = new AbortController()
  const follow = followPulls(ctx, events.signal)
  let id: string | undefined
  let interrupted = false
  const onInterrupt = () => {
    // A second Ctrl-C does not wait for the API any more.
    if (interrupted && !id) process.exit(130)
    interrupted = true
    // Cancel the pull the API runs; the event that follows ends the wait below.
    if (id) void callApi(ctx, `/api/models/${encodeURIComponent(id)}/pull`, { method: 'DELETE' })
  }
  process.on('SIGINT', onInterrupt)
  let display: LoadDisplay | undefined
  try {
    await follow.ready
    const res = await callApi<PullBody>(ctx, '/api/models/pull', {
      method: 'POST',
      body: JSON.stringify({ model }),
    })
    if (res.status === 200) {
      ctx.stdout.write(`${res.body.model} is already on disk (${bytes(res.body.total)})\n`)
      return 0
    }
    if (res.status !== 202) throw await modelError(ctx, res, model)
    id = res.body.model
    if (interrupted) onInterrupt()
    display = new LoadDisplay(ctx.stdout, id)
    display.progress(res.body.done, res.body.total)
    const end = await follow.until(id, (e) => display?.progress(e.done, e.total))
    display.end()
    if (end?.status === 'done') {
      ctx.stdout.write(`pulled ${id} (${bytes(end.total ?? end.done)})\n`)
      return 0
    }
    if (end?.status === 'cancelled') {
      ctx.stderr.write(
        `svc: the pull of ${id} was cancelled; what was downloaded stays and a later pull resumes it\n`,
      )
      return 130
    }
    throw new CliError(
      end
        ? `the pull of ${id} failed: ${end.error ?? 'unknown error'}`
        : `lost the API's events while pulling ${id}`,
    )
  } finally {
    display?.end()
    process.off('SIGINT', onInterrupt)
    events.abort()
    await follow.done.catch(() => undefined)
  }
}

/** `svc models rm <id>`: deletes a model's downloaded files (refused while a slot holds it). */
export async function rm(args: string[], ctx: CliContext): Promise<number> {
  const { positionals } = parseOptions('svc models rm', 'usage: svc models rm <id>', args, {})
  const id = positionals[0]
  if (!id || positionals.length > 1)
    throw new UsageError(
      'svc models rm',
      id ? `unexpected argument ${positionals[1]}` : 'remove which model?',
      'usage: svc models rm <id>',
    )
  const res = await callApi<{ id: string; deleted: boolean }>(ctx, `/api/models/${encodeURIComponent(id)}`, {
    method: 'DELETE',
  })
  if (res.status !== 200) throw await modelError(ctx, res, id)
  ctx.stdout.write(res.body.deleted ? `deleted ${res.body.id}\n` : `${res.body.id} had no file on disk\n`)
  return 0
}

/**
 * Follows `/api/events` for `model.pull` events: `ready` once the stream is open (its snapshot seen),
 * `until(id)` resolves with the pull's last event (done, failed, cancelled), or undefined if the
 * stream ends first.
 */
function followPulls(ctx: CliContext, signal: AbortSignal) {
  let markReady!: () => void
  const ready = new Promise<void>((r) => {
    markReady = r
  })
  const seen: ModelPullEvent[] = []
  let wake = () => {}
  let ended = false
  const done = (async () => {
    try {
      const res = await fetch(`${ctx.apiUrl}/api/events`, { signal, headers: bearer(ctx) })
      if (!res.ok || !res.body) return
      for await (const e of readSse(res.body)) {
        if (e.event === 'snapshot') markReady()
        if (e.event !== 'model.pull') continue
        seen.push(JSON.parse(e.data) as ModelPullEvent)
        wake()
      }
    } finally {
      ended = true
      markReady() // the pull proceeds without live progress if the stream is unavailable
      wake()
    }
  })()
  async function until(
    id: string,
    onProgress: (e: ModelPullEvent) => void,
  ): Promise<ModelPullEvent | undefined> {
    for (;;) {
      while (seen.length > 0) {
        const e = seen.shift()!
        if (e.model !== id) continue
        if (e.status !== 'pulling') return e
        onProgress(e)
      }
      if (ended) return undefined
      await new Promise<void>((r) => {
        wake = r
      })
    }
  }
  return { ready, done, until }
}
