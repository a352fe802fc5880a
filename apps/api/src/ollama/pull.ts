/**
 * `POST /api/pull` → svc's pull (`POST /api/models/:id/pull`, the same checks): NDJSON status lines
 * as Ollama writes them (`pulling manifest`, `pulling <id>` with `total`/`completed`, `success`), or
 * one `{"status":"success"}` once done with `stream: false`. svc pulls what its catalogue or a
 * pulled ref names; there is no Ollama registry behind it. A client that goes away stops following,
 * not the pull (it is svc's, and resumes).
 */
import type { ServerResponse } from 'node:http'
import { type ModelPullEvent, SvcError } from '@svc/core'
import type { ModelPulls } from '../slots/model-pulls'
import type { SlotSystem } from '../slots/slot-system'
import { svcModelName } from './names'
import { NdjsonWriter, writeJson } from './ndjson'

export interface PullDeps {
  slots: SlotSystem
  pulls?: ModelPulls
}

export async function pull(
  deps: PullDeps,
  request: { name: string; stream: boolean; res: ServerResponse; requestId: string; signal: AbortSignal },
): Promise<void> {
  const id = svcModelName(request.name)
  const entry = await deps.slots.store.get(id)
  if (!entry) throw new SvcError('model.not_found', `no model "${request.name}" to pull`, { param: 'model' })
  const complete = entry.path !== undefined && (!entry.mmproj || entry.mmproj.path !== undefined)
  if (complete) {
    if (request.stream) {
      const out = new NdjsonWriter(request.res, request.requestId)
      await out.line({ status: 'success' })
      out.end()
    } else writeJson(request.res, 200, { status: 'success' }, request.requestId)
    return
  }
  const holder = deps.slots.manager.findByModel(id)
  if (holder)
    throw new SvcError('model.in_use', `slot "${holder.name}" is loading "${id}"; its pull is under way`)
  if (
    !deps.pulls ||
    (entry.path !== undefined && !entry.mmproj?.url) ||
    (entry.path === undefined && !entry.url)
  )
    throw new SvcError('request.invalid', `"${id}" has nothing to download`, { param: 'model' })
  const events: ModelPullEvent[] = []
  let wake: (() => void) | undefined
  const off = deps.slots.bus.on('model.pull', (event) => {
    if (event.model !== id) return
    events.push(event)
    wake?.()
  })
  try {
    events.push(deps.pulls.start(entry))
    const out = request.stream ? new NdjsonWriter(request.res, request.requestId) : undefined
    await out?.line({ status: 'pulling manifest' })
    for (;;) {
      const event = events.shift()
      if (!event) {
        if (request.signal.aborted) return
        await new Promise<void>((resolve) => {
          wake = resolve
          request.signal.addEventListener('abort', () => resolve(), { once: true })
        })
        continue
      }
      if (event.status === 'pulling') {
        await out?.line({
          status: `pulling ${id}`,
          digest: id,
          total: event.total ?? 0,
          completed: event.done,
        })
        continue
      }
      if (event.status === 'done') {
        if (out) {
          await out.line({ status: 'success' })
          out.end()
        } else writeJson(request.res, 200, { status: 'success' }, request.requestId)
        return
      }
      throw new SvcError('upstream.error', event.error ?? `the pull of "${id}" was ${event.status}`, {
        status: 502,
      })
    }
  } finally {
    off()
  }
}
