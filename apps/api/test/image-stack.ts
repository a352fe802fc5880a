/**
 * What the image tests start: svc (from source) with its `img` slot on the ComfyUI stand-in
 * (runtime = "remote") holding SDXL Turbo, and the official `openai` client pointed at svc.
 */
import { type ApiProcess, type ComfyStandIn, startApi, startComfyStandIn } from '@svc/testing'
import type OpenAI from 'openai'
import { expect } from 'vitest'
import { openaiClient } from './chat-requests'
import { call, loadOk } from './live'

/** The stand-in's checkpoint of SDXL Turbo (the curated `sdxl-turbo`'s file). */
export const SDXL = 'sdxl-turbo/sd_xl_turbo_1.0_fp16.safetensors'

export interface ImageStack {
  comfy: ComfyStandIn
  api: ApiProcess
  client: OpenAI
}

/** Starts the stand-in and svc, points `img` at the stand-in and loads `sdxl-turbo` (throws if refused). */
export async function startImageStack(): Promise<ImageStack> {
  const comfy = await startComfyStandIn({ checkpoints: [SDXL] })
  const api = await startApi()
  const put = await call(api, '/api/slots/img', {
    method: 'PUT',
    json: { runtime: 'remote', url: comfy.url },
  })
  expect(put.status).toBe(200)
  await loadOk(api, 'img', 'sdxl-turbo')
  return { comfy, api, client: openaiClient(api) }
}
