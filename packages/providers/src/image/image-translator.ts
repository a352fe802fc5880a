/**
 * OpenAI `POST /v1/images/generations` → a ComfyUI workflow → PNGs in the image cache. Edits and
 * variations (a multipart `form`) take the same path with an edit template and their uploads first
 * (image-edit.ts).
 *
 * 1. Validate the body (`parseImageRequest`) and apply the model's own rules (size multiple, steps
 *    limit, cfg of distilled models: 0–1 → ComfyUI's 1.0 = guidance off).
 * 2. Fill the model's template (workflows/) with the values, a random 64-bit seed when none was
 *    sent, and a unique `filename_prefix` `svc/<prompt id>` (so ComfyUI's output cache never hands
 *    back another request's files); the checkpoint name is the one ComfyUI lists (see
 *    `chooseCheckpoint`).
 * 3. `POST /prompt` with our own `prompt_id` and a `client_id`, poll `/history/<id>`, fetch each image
 *    with `/view`, store it atomically in the cache.
 * 4. Forget what ComfyUI kept of it: its history entry (`POST /history {delete}`) and, when svc
 *    knows ComfyUI's output folder on this host (`outputDir`: the container's volume), the files it
 *    wrote under `svc/` for this prompt — they are in svc's bounded cache now, and ComfyUI itself never
 *    deletes outputs.
 * 5. Answer `{created, data: [{url} | {b64_json}], _svc: {workflow, checkpoint}}`.
 *
 * Errors: a refused graph → 400 `request.invalid` naming node and input (with `param` when the input
 * is fed by a request field); a failed or interrupted execution → 502 `upstream.error` naming the node
 * and exception; ComfyUI unreachable → 502 `upstream.unavailable`; no result within `timeoutMs` → the
 * prompt is interrupted and 504 `upstream.timeout`. When `signal` aborts (the client went away) the
 * prompt is interrupted / removed from the queue and the call rejects with the signal's reason.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { access, rm } from 'node:fs/promises'
import { basename, join, resolve, sep } from 'node:path'
import { type ModelEntry, SvcError } from '@svc/core'
import type { TranslateRequest, Translator } from '../contract'
import { fileNameFromUrl } from '../models/model-url'
import {
  type ComfyImage,
  ComfyRefusedError,
  cancelPrompt,
  fetchImage,
  forgetPrompt,
  queuePrompt,
  waitForHistory,
} from './comfy-client'
import { executionError, refusalError } from './comfy-errors'
import type { ImageCache } from './image-cache'
import { editSize, editTemplateId, uploadEditInputs } from './image-edit'
import { parseEditForm } from './image-edit-request'
import { exactSeeds, type ImageJob, parseImageRequest } from './image-request'
import {
  fillWorkflow,
  loadWorkflowTemplate,
  type WorkflowTemplate,
  type WorkflowValues,
} from './workflow-template'

/** An image model the provider serves: which template, and (optionally) the exact `ckpt_name`. */
export interface ImageModelOption {
  /** The model id clients send (`sdxl-turbo`). */
  id: string
  /** Template id in `workflowsDir`. Default: the model id. */
  workflow?: string
  /** `ckpt_name` to use as is. Default: chosen from what ComfyUI lists (`chooseCheckpoint`). */
  checkpoint?: string
}

export interface ImageTranslatorOptions {
  cache: ImageCache
  /** The `workflows/` directory. */
  workflowsDir: string
  models?: readonly ImageModelOption[]
  /** Budget for one request, from queueing to the last image stored (ms). Default 10 min. */
  timeoutMs?: number
  /** Longest pause between history polls (ms). Default 200. */
  pollMs?: number
  /** Wall clock for `created` (ms). */
  now?: () => number
  /**
   * ComfyUI's output folder as seen from svc's host (the container's volume,
   * `<state>/volumes/comfyui/output`): each request's own files there are removed once cached.
   * Absent (or a remote ComfyUI whose files are elsewhere): only its history entry is dropped.
   */
  outputDir?: string
}

type Values = Omit<WorkflowValues, 'checkpoint' | 'filenamePrefix'>

/** The model's rules on top of the request schema. Throws `request.invalid` with `param`. */
export function resolveValues(job: ImageJob, template: WorkflowTemplate): Values {
  const { width, height } = job.size ?? template.nativeSize
  const m = template.meta.size_multiple
  if (width % m !== 0 || height % m !== 0) {
    throw new SvcError('request.invalid', `size for ${template.id} must be a multiple of ${m} on each side`, {
      param: 'size',
    })
  }
  if (job.steps !== undefined && job.steps > template.meta.max_steps) {
    throw new SvcError(
      'request.invalid',
      `steps for ${template.id} must be at most ${template.meta.max_steps}`,
      {
        param: 'steps',
      },
    )
  }
  // Distilled models run without guidance; in ComfyUI that is cfg 1.0 (cfg 0 would ignore the prompt).
  const cfg = job.cfg !== undefined && template.meta.cfg_mode === 'distilled' && job.cfg <= 1 ? 1 : job.cfg
  return {
    prompt: job.prompt,
    negativePrompt: job.negativePrompt ?? '',
    seed: job.seed ?? BigInt(`0x${randomBytes(8).toString('hex')}`),
    ...(job.steps !== undefined ? { steps: job.steps } : {}),
    ...(cfg !== undefined ? { cfg } : {}),
    width,
    height,
    batchSize: job.n,
  }
}

/**
 * The `ckpt_name` to send: the configured one; else, of what ComfyUI lists for the template's loader
 * (`GET /object_info/<class>`), svc's layout `<model id>/<file>` (the model store keeps checkpoints in
 * `volumes/comfyui/models/checkpoints/<id>/`), then the template's file name, then any entry with one of those
 * base names (a remote ComfyUI with its own folders). When nothing matches, svc's layout — and
 * ComfyUI's refusal will list what it has.
 */
export async function chooseCheckpoint(
  base: URL,
  model: ModelEntry,
  template: WorkflowTemplate,
  signal: AbortSignal,
): Promise<string> {
  // The name the model store saved the file under (a URL's name made safe), not the raw URL path.
  const file = model.path ? basename(model.path) : model.url ? fileNameFromUrl(new URL(model.url)) : undefined
  const candidates = [file ? `${model.id}/${file}` : undefined, template.checkpoint].filter(
    (c): c is string => c !== undefined,
  )
  const [node, input] = template.meta.inputs.checkpoint
  const cls = template.graph[node]!.class_type
  try {
    const res = await fetch(new URL(`/object_info/${encodeURIComponent(cls)}`, base), { signal })
    const info = (await res.json()) as Record<string, { input?: { required?: Record<string, unknown[]> } }>
    const listed = info[cls]?.input?.required?.[input]?.[0]
    if (Array.isArray(listed)) {
      const names = listed.filter((n): n is string => typeof n === 'string')
      const exact = candidates.find((c) => names.includes(c))
      if (exact) return exact
      const wanted = new Set([file, template.checkpoint])
      const byName = names.find((n) => wanted.has(n.split('/').pop()))
      if (byName) return byName
    }
  } catch (error) {
    if (signal.aborted) throw error
    // cannot list: send the first candidate and let ComfyUI say what it has
  }
  return candidates[0]!
}

export function createImageTranslator(options: ImageTranslatorOptions): Translator {
  const timeoutMs = options.timeoutMs ?? 600_000
  const now = options.now ?? Date.now
  const templates = new Map<string, Promise<WorkflowTemplate>>()

  async function template(model: ModelEntry, workflow: string, edit = false): Promise<WorkflowTemplate> {
    let t = templates.get(workflow)
    if (!t) {
      const exists = await access(join(options.workflowsDir, `${workflow}.json`)).then(
        () => true,
        () => false,
      )
      if (!/^[a-z0-9][a-z0-9._-]*$/.test(workflow) || !exists) {
        const what = edit ? 'offers no image edits: it has no edit workflow' : 'has no workflow template'
        throw new SvcError('request.invalid', `image model "${model.id}" ${what} (${workflow}.json)`, {
          param: 'model',
        })
      }
      t = loadWorkflowTemplate(options.workflowsDir, workflow)
      t.catch(() => templates.delete(workflow)) // a fixed file is picked up on the next request
      templates.set(workflow, t)
    }
    return t
  }

  /** Removes the prompt's history and its own output files (only `svc/<promptId>…` under `outputDir`). */
  async function forget(base: URL, promptId: string, images: readonly ComfyImage[]): Promise<void> {
    const own = options.outputDir ? resolve(options.outputDir, 'svc') + sep : undefined
    await Promise.all([
      forgetPrompt(base, promptId),
      ...images.map(async (image) => {
        if (!own || image.type !== 'output' || !image.filename.startsWith(promptId)) return
        const path = resolve(options.outputDir!, image.subfolder, image.filename)
        if (path.startsWith(own)) await rm(path, { force: true }).catch(() => undefined)
      }),
    ])
  }

  async function handle(req: TranslateRequest): Promise<Response> {
    if (req.endpoint !== 'images') {
      throw new SvcError('request.invalid', `the image provider serves images, not ${req.endpoint}`)
    }
    const choice = options.models?.find((m) => m.id === req.model.id)
    const workflow = choice?.workflow ?? req.model.id
    if (req.form) {
      // /v1/images/edits and /variations: a multipart upload, read whole by the dispatcher
      const job = await parseEditForm(req.form, req.path === '/v1/images/variations')
      const t = await template(req.model, editTemplateId(workflow, job), true)
      const values = resolveValues({ ...job, size: job.size ?? editSize(job.image.facts, t) }, t)
      return run(req, t, choice, values, job.responseFormat, (id, signal) =>
        uploadEditInputs(req.base, job, id, signal),
      )
    }
    // The raw text keeps seeds above 2^53 exact (JSON.parse has already rounded them in `body`).
    const job = parseImageRequest(req.rawBody ? exactSeeds(req.body, req.rawBody) : req.body)
    const t = await template(req.model, workflow)
    return run(req, t, choice, resolveValues(job, t), job.responseFormat)
  }

  /**
   * Queues the filled template (after `inputs` uploaded what it reads), waits for it, caches the
   * images and answers the OpenAI body.
   */
  async function run(
    req: TranslateRequest,
    t: WorkflowTemplate,
    choice: ImageModelOption | undefined,
    values: Values,
    responseFormat: ImageJob['responseFormat'],
    inputs?: (promptId: string, signal: AbortSignal) => Promise<Partial<WorkflowValues>>,
  ): Promise<Response> {
    const promptId = randomUUID()
    const signal = AbortSignal.any([req.signal, AbortSignal.timeout(timeoutMs)])
    try {
      const checkpoint = choice?.checkpoint ?? (await chooseCheckpoint(req.base, req.model, t, signal))
      const named = inputs ? await inputs(promptId, signal) : {}
      const prompt = fillWorkflow(t, { ...values, ...named, checkpoint, filenamePrefix: `svc/${promptId}` })
      await queuePrompt(req.base, { prompt, client_id: randomUUID(), prompt_id: promptId }, signal)
      const entry = await waitForHistory(req.base, promptId, { signal, pollMs: options.pollMs })
      if (entry.status.status_str !== 'success') throw executionError(entry)
      const images = entry.outputs[t.meta.output]?.images ?? []
      if (images.length === 0) {
        throw new SvcError('upstream.error', `ComfyUI finished without images from node ${t.meta.output}`)
      }
      const data: ({ url: string } | { b64_json: string })[] = []
      for (const image of images) {
        const png = await fetchImage(req.base, image, signal)
        const id = await options.cache.put(png)
        data.push(
          responseFormat === 'b64_json'
            ? { b64_json: Buffer.from(png).toString('base64') }
            : { url: options.cache.urlPath(id) },
        )
      }
      await forget(req.base, promptId, images)
      const created = Math.floor(now() / 1000)
      return Response.json({ created, data, _svc: { workflow: t.id, checkpoint } })
    } catch (error) {
      if (error instanceof ComfyRefusedError) throw refusalError(error.refusal, t)
      if (!signal.aborted) throw error
      await cancelPrompt(req.base, promptId)
      if (req.signal.aborted) throw req.signal.reason
      throw new SvcError(
        'upstream.timeout',
        `ComfyUI did not finish the image within ${Math.round(timeoutMs / 1000)} s; the prompt was interrupted`,
      )
    }
  }

  return { endpoints: ['images'], handle }
}
