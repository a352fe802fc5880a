import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ComfyStandIn, startComfyStandIn } from '../src/index'
import { sd15Prompt } from './sd15-prompt'

/** The default SD 1.5 prompt at its real size and steps, with a negative prompt. */
const sd15 = () =>
  sd15Prompt({
    size: 512,
    steps: 20,
    positive: 'a photo of a red fox in the snow',
    negative: 'blurry, low quality',
  })

const CHECKPOINTS = [
  'flux1-schnell-fp8.safetensors',
  'sd_xl_turbo_1.0_fp16.safetensors',
  'v1-5-pruned-emaonly.safetensors',
]

let comfy: ComfyStandIn

beforeAll(async () => {
  comfy = await startComfyStandIn({ checkpoints: CHECKPOINTS })
})
afterAll(() => comfy.close())

interface Refusal {
  error: { type: string; message: string; details: string; extra_info: Record<string, unknown> }
  node_errors: Record<
    string,
    {
      errors: { type: string; message: string; details: string; extra_info: Record<string, unknown> }[]
      dependent_outputs: string[]
      class_type: string
    }
  >
}
type Reply = Refusal & { prompt_id: string; number: number }

async function post(body: string | object): Promise<{ status: number; text: string; json: () => Reply }> {
  const res = await fetch(`${comfy.url}/prompt`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
  const text = await res.text()
  return { status: res.status, text, json: () => JSON.parse(text) }
}

/** ComfyUI's refusal when inputs fail validation: a fixed `error` and the errors of each node. */
function outputsFailedValidation(nodeErrors: Refusal['node_errors']): Refusal {
  return {
    error: {
      type: 'prompt_outputs_failed_validation',
      message: 'Prompt outputs failed validation',
      details: '',
      extra_info: {},
    },
    node_errors: nodeErrors,
  }
}

async function refusedWith(graph: object): Promise<Refusal> {
  const res = await post({ prompt: graph })
  expect(res.status).toBe(400)
  return res.json()
}

/** The first error of `node` in the refusal of `graph` (which must be refused). */
async function firstErrorOf(graph: object, node: string) {
  return (await refusedWith(graph)).node_errors[node]?.errors[0]
}

describe('the ComfyUI stand-in validates graphs as ComfyUI does', () => {
  it('accepts the default SD 1.5 graph with {prompt_id, number, node_errors}', async () => {
    const res = await post({ prompt: sd15(), client_id: 'abc' })
    expect(res.status).toBe(200)
    const body = res.json()
    expect(body).toEqual({ prompt_id: expect.any(String), number: expect.any(Number), node_errors: {} })
    expect(res.text).toMatch(/^\{"prompt_id": "/) // json.dumps separators
  })

  it('refuses a sampler not in the list of 42 (input_config null)', async () => {
    const g = sd15()
    g['3']!.inputs.sampler_name = 'euler_a'
    expect(await refusedWith(g)).toEqual(
      outputsFailedValidation({
        '3': {
          errors: [
            {
              type: 'value_not_in_list',
              message: 'Value not in list',
              details: "sampler_name: 'euler_a' not in (list of length 42)",
              extra_info: { input_name: 'sampler_name', input_config: null, received_value: 'euler_a' },
            },
          ],
          dependent_outputs: ['9'],
          class_type: 'KSampler',
        },
      }),
    )
  })

  it('refuses a checkpoint it does not have, listing the ones it has', async () => {
    const g = sd15()
    g['4']!.inputs.ckpt_name = 'sdxl-turbo'
    expect(await firstErrorOf(g, '4')).toEqual({
      type: 'value_not_in_list',
      message: 'Value not in list',
      details: `ckpt_name: 'sdxl-turbo' not in ['flux1-schnell-fp8.safetensors', 'sd_xl_turbo_1.0_fp16.safetensors', 'v1-5-pruned-emaonly.safetensors']`,
      extra_info: {
        input_name: 'ckpt_name',
        input_config: [CHECKPOINTS, { tooltip: 'The name of the checkpoint (model) to load.' }],
        received_value: 'sdxl-turbo',
      },
    })
  })

  it('lists only the checkpoints it was told it has', async () => {
    await using other = await startComfyStandIn({ checkpoints: ['only.safetensors'] })
    const res = await fetch(`${other.url}/object_info/CheckpointLoaderSimple`)
    const info = (await res.json()) as {
      CheckpointLoaderSimple: { input: { required: { ckpt_name: unknown[] } } }
    }
    expect(info.CheckpointLoaderSimple.input.required.ckpt_name[0]).toEqual(['only.safetensors'])
  })

  it('checks min and max with Python messages (ints, floats as 150.0)', async () => {
    const g = sd15()
    g['3']!.inputs.steps = 20000
    g['3']!.inputs.cfg = 150
    g['5']!.inputs.width = 8
    const body = await refusedWith(g)
    const errors = [...body.node_errors['3']!.errors, ...body.node_errors['5']!.errors]
    expect(errors.map((e) => e.message).sort()).toEqual([
      'Value 150.0 bigger than max of 100.0',
      'Value 20000 bigger than max of 10000',
      'Value 8 smaller than min of 16',
    ])
    const width = body.node_errors['5']!.errors[0]!
    expect(width.details).toBe('width')
    expect(width.extra_info.input_config).toEqual([
      'INT',
      { default: 512, min: 16, max: 16384, step: 8, tooltip: 'The width of the latent images in pixels.' },
    ])
  })

  it('takes seeds up to 2^64-1 exactly and refuses 2^64', async () => {
    const raw = (seed: string) => JSON.stringify({ prompt: sd15() }).replace('"seed":42', `"seed":${seed}`)
    const ok = await post(raw('18446744073709551615'))
    expect(ok.status).toBe(200)
    const big = await post(raw('18446744073709551616'))
    expect(big.status).toBe(400)
    expect(big.json().node_errors['3']!.errors[0]!.message).toBe(
      'Value 18446744073709551616 bigger than max of 18446744073709551615',
    )
    expect(big.text).toContain('"received_value": 18446744073709551616')
    // a decimal string is coerced by int()
    const asString = await post(raw('"18446744073709551615"'))
    expect(asString.status).toBe(200)
  })

  it('does not enforce step: width 513 passes', async () => {
    const g = sd15()
    g['5']!.inputs.width = 513
    expect((await post({ prompt: g })).status).toBe(200)
  })

  it('reports a missing required input (the old SDXL Turbo example without denoise)', async () => {
    const g = {
      '20': {
        class_type: 'CheckpointLoaderSimple',
        inputs: { ckpt_name: 'sd_xl_turbo_1.0_fp16.safetensors' },
      },
      '22': { class_type: 'SDTurboScheduler', inputs: { model: ['20', 0], steps: 1 } },
      '5': { class_type: 'EmptyLatentImage', inputs: { width: 512, height: 512, batch_size: 1 } },
      '6': { class_type: 'CLIPTextEncode', inputs: { text: 'fox', clip: ['20', 1] } },
      '7': { class_type: 'CLIPTextEncode', inputs: { text: 'text, watermark', clip: ['20', 1] } },
      '14': { class_type: 'KSamplerSelect', inputs: { sampler_name: 'euler_ancestral' } },
      '13': {
        class_type: 'SamplerCustom',
        inputs: {
          model: ['20', 0],
          add_noise: true,
          noise_seed: 0,
          cfg: 1,
          positive: ['6', 0],
          negative: ['7', 0],
          sampler: ['14', 0],
          sigmas: ['22', 0],
          latent_image: ['5', 0],
        },
      },
      '8': { class_type: 'VAEDecode', inputs: { samples: ['13', 0], vae: ['20', 2] } },
      '25': { class_type: 'PreviewImage', inputs: { images: ['8', 0] } },
    }
    expect(await refusedWith(g)).toEqual(
      outputsFailedValidation({
        '22': {
          errors: [
            {
              type: 'required_input_missing',
              message: 'Required input is missing',
              details: 'denoise',
              extra_info: { input_name: 'denoise' },
            },
          ],
          dependent_outputs: ['25'],
          class_type: 'SDTurboScheduler',
        },
      }),
    )
  })

  it('reports a link whose type does not match (return_type_mismatch)', async () => {
    const g = sd15()
    g['8']!.inputs.samples = ['6', 0]
    expect(await firstErrorOf(g, '8')).toEqual({
      type: 'return_type_mismatch',
      message: 'Return type mismatch between linked nodes',
      details: 'samples, received_type(CONDITIONING) mismatch input_type(LATENT)',
      extra_info: {
        input_name: 'samples',
        input_config: ['LATENT', { tooltip: 'The latent to be decoded.' }],
        received_type: 'CONDITIONING',
        linked_node: ['6', 0],
      },
    })
  })

  it('reports a literal that does not convert (invalid_input_type)', async () => {
    const g = sd15()
    g['3']!.inputs.steps = 'abc'
    const e = (await firstErrorOf(g, '3'))!
    expect(e.type).toBe('invalid_input_type')
    expect(e.message).toBe('Failed to convert an input value to a INT value')
    expect(e.details).toBe("steps, abc, invalid literal for int() with base 10: 'abc'")
    expect(e.extra_info.exception_message).toBe("invalid literal for int() with base 10: 'abc'")
  })

  it('refuses unknown classes, nodes without class_type and graphs without outputs', async () => {
    const unknown = sd15()
    unknown['3']!.class_type = 'KSamplerX'
    expect(await refusedWith(unknown)).toEqual({
      error: {
        type: 'invalid_prompt',
        message: 'Cannot execute because node KSamplerX does not exist.',
        details: "Node ID '#3'",
        extra_info: {},
      },
      node_errors: {},
    })
    const noClass = sd15() as Record<string, { class_type?: string }>
    delete noClass['3']!.class_type
    expect((await refusedWith(noClass)).error.message).toBe(
      'Cannot execute because a node is missing the class_type property.',
    )
    const noOutput = sd15() as Record<string, unknown>
    delete noOutput['9']
    expect(await refusedWith(noOutput)).toEqual({
      error: { type: 'prompt_no_outputs', message: 'Prompt has no outputs', details: '', extra_info: {} },
      node_errors: {},
    })
    expect(await (await post({ client_id: 'x' })).json()).toEqual({
      error: {
        type: 'no_prompt',
        message: 'No prompt provided',
        details: 'No prompt provided',
        extra_info: {},
      },
      node_errors: {},
    })
  })

  it('reports a link to a missing node as a KeyError on the node that owns it', async () => {
    const onOutput = sd15()
    onOutput['9']!.inputs.images = ['99', 0]
    const body = await refusedWith(onOutput)
    expect(body.error.details).toBe("Exception when validating node: '99'")
    expect(body.node_errors['9']!.errors[0]).toMatchObject({
      type: 'exception_during_validation',
      details: "'99'",
      extra_info: { exception_type: 'KeyError' },
    })
    const upstream = sd15()
    upstream['3']!.inputs.model = ['99', 0]
    expect(await firstErrorOf(upstream, '3')).toMatchObject({
      type: 'exception_during_inner_validation',
      details: "'99'",
      extra_info: { exception_type: 'KeyError', input_name: 'samples', linked_node: ['3', 0] },
    })
  })

  it('lets a literal through where a link is expected, then fails it at execution', async () => {
    const g = sd15()
    g['3']!.inputs.model = 'not a model'
    const res = await post({ prompt: g })
    expect(res.status).toBe(200)
    const id = res.json().prompt_id
    const entry = await waitForHistory(id)
    expect(entry.status.status_str).toBe('error')
    expect(entry.status.messages.at(-1)?.[0]).toBe('execution_error')
    expect(entry.status.messages.at(-1)?.[1].node_id).toBe('3')
  })

  it('answers a body that is not JSON with aiohttp’s 500', async () => {
    const res = await post('{not json')
    expect(res.status).toBe(500)
    expect(res.text).toContain('500 Internal Server Error')
  })
})

interface HistoryEntry {
  status: { status_str: string; messages: [string, Record<string, unknown>][] }
}

async function waitForHistory(id: string): Promise<HistoryEntry> {
  for (;;) {
    const h = (await (await fetch(`${comfy.url}/history/${id}`)).json()) as Record<string, HistoryEntry>
    if (h[id]) return h[id]
    await new Promise((r) => setTimeout(r, 20))
  }
}
