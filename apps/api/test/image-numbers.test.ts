/**
 * A huge number in an image request (as the seed, or in any other field) is
 * answered as fast as a body of the same size without one — only the seed fields are read exactly,
 * and only up to 20 digits. Real API process, `img` slot on the ComfyUI stand-in.
 */
import { type ApiProcess, type ComfyStandIn, startApi, startComfyStandIn } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, loadOk } from './live'

const DIGITS = '9'.repeat(10_000_000)

describe('huge numbers in image requests', () => {
  let comfy: ComfyStandIn
  let api: ApiProcess

  beforeAll(async () => {
    comfy = await startComfyStandIn({ checkpoints: ['sdxl-turbo/sd_xl_turbo_1.0_fp16.safetensors'] })
    api = await startApi()
    await call(api, '/api/slots/img', { method: 'PUT', json: { runtime: 'remote', url: comfy.url } })
    await loadOk(api, 'img', 'sdxl-turbo')
  }, 60_000)

  afterAll(async () => {
    await api?.[Symbol.asyncDispose]()
    await comfy?.close()
  })

  const post = async (body: string) => {
    const t0 = performance.now()
    const res = await fetch(`${api.url}/v1/images/generations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    })
    const json = (await res.json()) as { error?: { code: string; param: string | null; message: string } }
    return { status: res.status, error: json.error, ms: performance.now() - t0 }
  }

  it('refuses a ten-million-digit seed with 400 and param, as fast as a same-size body without it', async () => {
    const head = '{"model":"sdxl-turbo","prompt":"x",'
    const control = `${head}"seed":-1,"user":"${DIGITS}"}`
    const bigSeed = `${head}"seed":${DIGITS}}`
    const bigNested = `${head}"extra_body":{"seed":-${DIGITS}}}`
    const bigElsewhere = `${head}"seed":-1,"user":${DIGITS}}`
    const rounds: Record<string, number[]> = { control: [], bigSeed: [], bigNested: [], bigElsewhere: [] }
    for (let i = 0; i < 2; i++) {
      for (const [name, body] of Object.entries({ control, bigSeed, bigNested, bigElsewhere })) {
        const r = await post(body)
        expect(r.status, name).toBe(400)
        expect(r.error, name).toMatchObject({
          code: 'request.invalid',
          param: name === 'bigNested' ? 'extra_body.seed' : 'seed',
        })
        rounds[name]!.push(r.ms)
      }
    }
    // A ratio within one run (not a time): converting the digits to BigInt took seconds.
    const best = (name: string) => Math.min(...rounds[name]!)
    for (const name of ['bigSeed', 'bigNested', 'bigElsewhere']) {
      expect(best(name), name).toBeLessThan(best('control') * 4 + 500)
    }
  }, 120_000)

  it('still takes an exact seed of 2^64-1 written as a JSON number', async () => {
    const res = await fetch(`${api.url}/v1/images/generations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"model":"sdxl-turbo","prompt":"x","size":"256x256","steps":1,"seed":18446744073709551615}',
    })
    expect(res.status).toBe(200)
    expect(String(comfy.prompts.at(-1)?.raw)).toContain('"noise_seed":18446744073709551615')
  }, 60_000)
})
