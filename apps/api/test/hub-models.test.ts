/**
 * Models named as people share them, `hf.co/<owner>/<repo>:<quant>`, through the real API and the real
 * llama-server, against the Hub stand-in behind `HF_ENDPOINT` (the Hub and its CDN on two origins):
 * a quant loads and answers chat under its Hub name, a split GGUF loads by its first shard, a vision
 * repo brings its projector, a gated repo wants `HF_TOKEN` and works with it, the token never reaches
 * the CDN.
 */
import { mkdtemp, readdir, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  type ApiProcess,
  buildTinyGguf,
  buildTinyMmproj,
  type HubStandIn,
  hubToken,
  splitFileName,
  splitGguf,
  startApi,
  startHubStandIn,
  writeSvcConfig,
} from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, cli, collectEvents, LIGHT_ARGS, llamaServerAvailable, requestLoad, waitForSlot } from './live'

const available = llamaServerAvailable()
const alice = hubToken('alice')
type Listed = { models: { id: string; capabilities?: string[]; present?: boolean }[] }

describe.skipIf(!available)('models from the Hugging Face Hub (stand-in), loaded by name', () => {
  let hub: HubStandIn
  let svc: ApiProcess
  let anonymous: ApiProcess
  const q4 = buildTinyGguf({ seed: 2 }).bytes
  const whole = buildTinyGguf({ seed: 3 }).bytes
  const shards = splitGguf(whole, 3)

  beforeAll(async () => {
    hub = await startHubStandIn({
      tokens: { [alice]: 'alice' },
      repos: [
        {
          id: 'tiny/Tiny-GGUF',
          files: {
            'README.md': Buffer.from('# Tiny\n'),
            // Lower case on purpose: the quant in the name matches case-insensitively.
            'Tiny-q4_k_m.gguf': q4,
            'Tiny-Q8_0.gguf': buildTinyGguf({ seed: 1 }).bytes,
          },
        },
        {
          id: 'tiny/Split-GGUF',
          files: Object.fromEntries(shards.map((b, i) => [`Q8_0/${splitFileName('Split-Q8_0', i, 3)}`, b])),
        },
        {
          id: 'tiny/Vision-GGUF',
          files: {
            'Vision-Q8_0.gguf': buildTinyGguf({ seed: 4 }).bytes,
            'mmproj-Vision-F32.gguf': buildTinyMmproj().bytes,
          },
        },
        { id: 'acme/Gated-GGUF', gated: 'manual', access: ['alice'], files: { 'Gated-Q4_K_M.gguf': q4 } },
        { id: 'tiny/Corrupt-GGUF', files: { 'Corrupt-Q4_K_M.gguf': q4 }, corrupt: ['Corrupt-Q4_K_M.gguf'] },
      ],
    })
    const [a, b] = await Promise.all([
      mkdtemp(join(tmpdir(), 'svc-hub-a-')),
      mkdtemp(join(tmpdir(), 'svc-hub-b-')),
    ])
    await writeSvcConfig(a, { slots: { primary: LIGHT_ARGS } })
    // Without a token, loading (and pulling) what requests name; slot `fixed` loads a Hub name at start.
    await writeSvcConfig(b, {
      slots: {
        primary: `load_on_request = true\npull_on_request = true\n${LIGHT_ARGS}`,
        fixed: `provider = "llm"\nenabled = true\n${LIGHT_ARGS}[model]\ndefault = "hf.co/tiny/Tiny-GGUF"\n`,
      },
    })
    ;[svc, anonymous] = await Promise.all([
      startApi({ configDir: a, env: { HF_ENDPOINT: hub.url, HF_TOKEN: alice } }),
      startApi({ configDir: b, env: { HF_ENDPOINT: hub.url, HF_TOKEN: '' } }),
    ])
  }, 60_000)

  afterAll(async () => {
    await svc?.[Symbol.asyncDispose]()
    await anonymous?.[Symbol.asyncDispose]()
    await hub?.[Symbol.asyncDispose]()
  })

  const chat = (api: ApiProcess, model: string) =>
    call<{ model: string; choices: unknown[] }>(api, '/v1/chat/completions', {
      method: 'POST',
      json: { model, max_tokens: 3, messages: [{ role: 'user', content: 'hi' }] },
    })

  it('loads hf.co/<owner>/<repo>:<quant> (any case) and answers chat under the canonical name', async () => {
    const load = await requestLoad(svc, 'primary', { model: 'hf.co/tiny/tiny-gguf:Q4_K_M' })
    expect(load.status, JSON.stringify(load.body)).toBe(200)
    expect(load.body).toMatchObject({ state: 'ready', model: 'hf.co/tiny/Tiny-GGUF:Q4_K_M' })
    const answer = await chat(svc, 'hf.co/tiny/Tiny-GGUF:Q4_K_M')
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    expect(answer.body.choices).toHaveLength(1)

    const stored = join(svc.stateDir, 'models', 'hf', 'tiny', 'tiny-gguf', 'q4_k_m')
    expect(await readdir(stored)).toEqual(['Tiny-q4_k_m.gguf'])
    const listed = await call<Listed>(svc, '/api/models')
    expect(listed.body.models.find((m) => m.id === 'hf.co/tiny/Tiny-GGUF:Q4_K_M')).toMatchObject({
      present: true,
    })
    // The token went to the Hub; the CDN the Hub redirected to never saw it.
    const cdn = hub.requests.filter((r) => r.origin === 'cdn')
    expect(cdn.length).toBeGreaterThan(0)
    expect(cdn.every((r) => r.authorization === undefined)).toBe(true)
    expect(hub.requests.some((r) => r.origin === 'hub' && r.authorization === `Bearer ${alice}`)).toBe(true)

    // The same name in llama.cpp's form, no quant: the default (Q4_K_M) is already here.
    const cdnBefore = hub.requests.filter((r) => r.origin === 'cdn').length
    const again = await requestLoad(svc, 'primary', { model: 'hf:tiny/Tiny-GGUF' })
    expect(again.status).toBe(200)
    expect(again.body.model).toBe('hf.co/tiny/Tiny-GGUF:Q4_K_M')
    expect(hub.requests.filter((r) => r.origin === 'cdn').length).toBe(cdnBefore)
  }, 60_000)

  it('loads a split GGUF by its first shard, all shards pulled with one progress figure', async () => {
    const watching = await collectEvents(svc, (events) =>
      events.some((e) => e.event === 'slot.transition' && e.data.to === 'ready'),
    )
    const load = await requestLoad(svc, 'primary', { model: 'hf.co/tiny/Split-GGUF' })
    expect(load.status, JSON.stringify(load.body)).toBe(200)
    expect(load.body).toMatchObject({ state: 'ready', model: 'hf.co/tiny/Split-GGUF:Q8_0' })
    const stored = join(svc.stateDir, 'models', 'hf', 'tiny', 'split-gguf', 'q8_0')
    expect((await readdir(stored)).sort()).toEqual([0, 1, 2].map((i) => splitFileName('Split-Q8_0', i, 3)))
    const total = shards.reduce((sum, b) => sum + b.length, 0)
    const progress = (await watching.done).filter((e) => e.event === 'slot.progress').map((e) => e.data)
    expect(progress.at(-1)).toMatchObject({ done: total, total })
    const logs = await call<{ lines: string[] }>(svc, '/api/slots/primary/logs')
    // llama-server was given the first shard; it loads only with the other two beside it.
    expect(logs.body.lines.join('\n')).toMatch(/loading model '.*\/Split-Q8_0-00001-of-00003\.gguf'/)
    expect((await chat(svc, 'hf.co/tiny/Split-GGUF:Q8_0')).status).toBe(200)
  }, 60_000)

  it('brings a vision repo’s mmproj: vision among the capabilities, the projector in the engine', async () => {
    // Through the CLI, as a person types it.
    const load = await cli(svc, ['slot', 'load', 'primary', '--model', 'hf.co/tiny/Vision-GGUF:q8_0'])
    expect(load.code, load.stderr).toBe(0)
    expect(load.stdout).toMatch(/primary is ready with hf\.co\/tiny\/Vision-GGUF:Q8_0/)
    const listed = await call<Listed>(svc, '/api/models')
    expect(listed.body.models.find((m) => m.id === 'hf.co/tiny/Vision-GGUF:Q8_0')).toMatchObject({
      present: true,
      capabilities: ['chat', 'vision'],
    })
    const logs = await call<{ lines: string[] }>(svc, '/api/slots/primary/logs')
    expect(logs.body.lines.join('\n')).toMatch(/loaded multimodal model, '.*mmproj-Vision-F32\.gguf'/)
  }, 60_000)

  it('refuses a gated repo without HF_TOKEN with a 401 naming it, and loads it with one', async () => {
    const refused = await requestLoad(anonymous, 'primary', { model: 'hf.co/acme/Gated-GGUF:Q4_K_M' })
    expect(refused.status).toBe(401)
    expect(refused.body.error).toMatchObject({ code: 'hub.unauthorized' })
    expect(refused.body.error?.message).toMatch(/acme\/Gated-GGUF.*HF_TOKEN/)
    const listed = await call<Listed>(anonymous, '/api/models')
    expect(listed.body.models.some((m) => m.id.includes('Gated'))).toBe(false)

    const load = await requestLoad(svc, 'primary', { model: 'hf.co/acme/Gated-GGUF:Q4_K_M' })
    expect(load.status, JSON.stringify(load.body)).toBe(200)
    expect((await chat(svc, 'hf.co/acme/Gated-GGUF:Q4_K_M')).status).toBe(200)
  }, 60_000)

  it('answers a quant the repo does not have with 404 listing the ones it has', async () => {
    const r = await requestLoad(anonymous, 'primary', { model: 'hf.co/tiny/Tiny-GGUF:Q2_K' })
    expect(r.status).toBe(404)
    expect(r.body.error).toMatchObject({ code: 'model.not_found', param: 'model' })
    expect(r.body.error?.message).toContain(
      'tiny/Tiny-GGUF on the Hub has no quant "Q2_K"; it has: Q4_K_M, Q8_0',
    )
  })

  it('fails a download whose sha256 is not the one the Hub states, leaving no ref and no file', async () => {
    const r = await requestLoad(anonymous, 'primary', { model: 'hf.co/tiny/Corrupt-GGUF:Q4_K_M' })
    expect(r.status).toBe(502)
    expect(r.body.error?.message).toMatch(/checksum mismatch/)
    const listed = await call<Listed>(anonymous, '/api/models')
    expect(listed.body.models.map((m) => m.id)).not.toContain('hf.co/tiny/Corrupt-GGUF:Q4_K_M')
    const models = join(anonymous.stateDir, 'models')
    expect(await readdir(join(models, 'hf', 'tiny')).catch(() => [])).not.toContain('corrupt-gguf')
    // Nothing registered either.
    const registry = await readFile(join(models, 'registry.json'), 'utf8').catch(() => '')
    expect(registry).not.toContain('Corrupt')
  }, 30_000)

  it('loads a Hub name a request names (llama.cpp spelling) into a slot that loads on request', async () => {
    const answer = await chat(anonymous, 'hf:tiny/Tiny-GGUF:q8_0')
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    const slot = await call<{ model: string }>(anonymous, '/api/slots/primary')
    expect(slot.body.model).toBe('hf.co/tiny/Tiny-GGUF:Q8_0')
    expect((await chat(anonymous, 'hf.co/tiny/Tiny-GGUF:Q8_0')).status).toBe(200)
  }, 60_000)

  it('loads a slot file’s [model] default given as a Hub name when svc starts', async () => {
    const slot = await waitForSlot(anonymous, 'fixed', (x) => x.state === 'ready' || x.lastError !== null)
    expect(slot, JSON.stringify(slot)).toMatchObject({ state: 'ready', model: 'hf.co/tiny/Tiny-GGUF:Q4_K_M' })
  }, 60_000)
})
