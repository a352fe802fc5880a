/**
 * End to end: the official `openai` (Responses API) and `@anthropic-ai/sdk` (Messages) clients,
 * only the base URL changed, against svc in front of real llama-server upstreams. `primary` holds a
 * plain tiny model (it writes text); `tools` holds one whose weights open a forced tool call at once
 * (`writeTinyGguf({tools: true})`), so constrained output is checked deterministically.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import { type ApiProcess, startApiWithConfig, writeTinyGguf } from '@svc/testing'
import type OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openaiClient } from './chat-requests'
import { call, LIGHT_ARGS, llamaServerAvailable, loadOk } from './live'

const available = llamaServerAvailable()
const TOOLS_ARGS = 'args = ["-c", "4096", "-np", "1", "--threads", "1"]\n'

/** A JSON schema the answers must match (an integer and a short string, nothing else). */
const SCHEMA = {
  type: 'object',
  properties: { n: { type: 'integer' }, word: { type: 'string', maxLength: 6 } },
  required: ['n', 'word'],
  additionalProperties: false,
} as const
const WEATHER_PARAMS = {
  type: 'object' as const,
  properties: { days: { type: 'integer' } },
  required: ['days'],
  additionalProperties: false,
}

function matchesSchema(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false
  const v = value as Record<string, unknown>
  return (
    Object.keys(v).sort().join() === 'n,word' &&
    Number.isInteger(v.n) &&
    typeof v.word === 'string' &&
    v.word.length <= 6
  )
}

describe.skipIf(!available)('the Responses and Messages APIs through svc, with the official clients', () => {
  let dir: string
  let api: ApiProcess
  let openai: OpenAI
  let anthropic: Anthropic

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-gguf-'))
    const [plain, tools] = await Promise.all([
      writeTinyGguf(join(dir, 'tiny-chat.gguf'), { role: 'chat' }),
      writeTinyGguf(join(dir, 'tiny-tools.gguf'), { role: 'chat', tools: true, contextLength: 4096 }),
    ])
    api = await startApiWithConfig({
      slots: { primary: LIGHT_ARGS, tools: `provider = "llm"\n${TOOLS_ARGS}` },
    })
    await Promise.all([loadOk(api, 'primary', plain.path), loadOk(api, 'tools', tools.path)])
    openai = openaiClient(api)
    anthropic = new Anthropic({ baseURL: api.url, apiKey: 'unused', maxRetries: 0 })
  }, 90_000)

  afterAll(async () => {
    await api?.[Symbol.asyncDispose]()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  describe('OpenAI Responses', () => {
    it('answers responses.create with output text and usage', async () => {
      const r = await openai.responses.create({ model: 'primary', input: 'Hello', max_output_tokens: 5 })
      expect(r.object).toBe('response')
      // The tiny model never writes EOS: it is cut at max_output_tokens (conformance/responses.table.ts).
      expect(r.status).toBe('incomplete')
      expect(r.incomplete_details?.reason).toBe('max_output_tokens')
      expect(r.output_text.length).toBeGreaterThan(0)
      expect(r.usage?.output_tokens).toBe(5)
    })

    it('streams responses.create as typed events ending in response.incomplete (cut at max_output_tokens)', async () => {
      const stream = await openai.responses.create({
        model: 'tiny-chat',
        input: [{ role: 'user', content: 'Count' }],
        max_output_tokens: 6,
        stream: true,
      })
      const types: string[] = []
      let text = ''
      for await (const event of stream) {
        types.push(event.type)
        if (event.type === 'response.output_text.delta') text += event.delta
      }
      expect(types[0]).toBe('response.created')
      expect(types.filter((t) => t === 'response.output_text.delta').length).toBeGreaterThanOrEqual(2)
      expect(types.at(-1)).toBe('response.incomplete')
      expect(text.length).toBeGreaterThan(0)
    })

    it('carries text.format json_schema to the engine: the answer parses and matches the schema', async () => {
      for (let i = 0; i < 3; i++) {
        const r = await openai.responses.create({
          model: 'tools',
          input: 'A number and a word',
          max_output_tokens: 300,
          text: { format: { type: 'json_schema', name: 'pair', schema: SCHEMA, strict: true } },
        })
        expect(matchesSchema(JSON.parse(r.output_text)), r.output_text).toBe(true)
      }
    })

    it('forces the named tool: a function_call item with arguments that match its parameters', async () => {
      const r = await openai.responses.create({
        model: 'tools',
        input: 'Weather?',
        max_output_tokens: 2000,
        tools: [
          { type: 'function', name: 'other', parameters: WEATHER_PARAMS, strict: true },
          { type: 'function', name: 'get_weather', parameters: WEATHER_PARAMS, strict: true },
        ],
        tool_choice: { type: 'function', name: 'get_weather' },
      })
      const call = r.output.find((item) => item.type === 'function_call')
      expect(call).toMatchObject({ type: 'function_call', name: 'get_weather' })
      const args = JSON.parse((call as { arguments: string }).arguments) as { days: unknown }
      expect(Number.isInteger(args.days)).toBe(true)
    })

    it('counts input tokens for responses and chat', async () => {
      const responses = await call<{ input_tokens: number }>(api, '/v1/responses/input_tokens', {
        method: 'POST',
        json: { model: 'primary', input: 'Hello there' },
      })
      const chat = await call<{ input_tokens: number }>(api, '/v1/chat/completions/input_tokens', {
        method: 'POST',
        json: { model: 'primary', messages: [{ role: 'user', content: 'Hello there' }] },
      })
      expect(responses.status).toBe(200)
      expect(responses.body.input_tokens).toBeGreaterThan(3)
      expect(chat.body.input_tokens).toBe(responses.body.input_tokens)
    })

    it('refuses stored responses with 400 naming the field', async () => {
      for (const [field, value] of [
        ['previous_response_id', 'resp_123'],
        ['store', true],
      ] as const) {
        const error = await openai.responses
          .create({ model: 'primary', input: 'hi', [field]: value })
          .catch((e: unknown) => e)
        expect(error).toMatchObject({ status: 400, param: field, code: 'request.invalid' })
      }
    })
  })

  describe('OpenAI chat, constrained', () => {
    it('answers response_format json_schema with JSON that matches the schema', async () => {
      const r = await openai.chat.completions.create({
        model: 'tools',
        messages: [{ role: 'user', content: 'A number and a word' }],
        max_tokens: 300,
        response_format: { type: 'json_schema', json_schema: { name: 'pair', schema: SCHEMA, strict: true } },
      })
      const content = r.choices[0]?.message.content ?? ''
      expect(matchesSchema(JSON.parse(content)), content).toBe(true)
    })

    // The forced-tool tests allow 2000 tokens (the slot's context is 4096): the grammar admits
    // whitespace at each JSON position, and the random weights, sampled, spent 300 there now and then
    // (CI: finish_reason "length"; here 2 of 9 runs). Greedy decoding is no cure: it fills them every time.
    it('forces the named tool: tool_calls with arguments that match its parameters', async () => {
      const r = await openai.chat.completions.create({
        model: 'tools',
        messages: [{ role: 'user', content: 'Weather?' }],
        max_tokens: 2000,
        tools: [
          { type: 'function', function: { name: 'other', parameters: WEATHER_PARAMS } },
          { type: 'function', function: { name: 'get_weather', parameters: WEATHER_PARAMS } },
        ],
        tool_choice: { type: 'function', function: { name: 'get_weather' } },
      })
      const choice = r.choices[0]
      expect(choice?.finish_reason).toBe('tool_calls')
      const fn = choice?.message.tool_calls?.[0]
      expect(fn?.type === 'function' && fn.function.name).toBe('get_weather')
      const args = JSON.parse(fn?.type === 'function' ? fn.function.arguments : '') as { days: unknown }
      expect(Number.isInteger(args.days)).toBe(true)
    })
  })

  describe('Anthropic Messages', () => {
    it('answers messages.create with a text block and usage', async () => {
      const m = await anthropic.messages.create({
        model: 'primary',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'Hello' }],
      })
      expect(m.type).toBe('message')
      expect(m.role).toBe('assistant')
      expect(m.stop_reason).toBe('max_tokens')
      expect(m.content[0]?.type).toBe('text')
      expect(m.usage.output_tokens).toBe(5)
    })

    it('streams messages.stream into a final message', async () => {
      const stream = anthropic.messages.stream({
        model: 'tiny-chat',
        max_tokens: 6,
        system: 'Be brief.',
        messages: [{ role: 'user', content: 'Count' }],
      })
      const deltas: string[] = []
      stream.on('text', (text) => deltas.push(text))
      const final = await stream.finalMessage()
      expect(deltas.length).toBeGreaterThanOrEqual(2)
      expect(final.content[0]?.type === 'text' && final.content[0].text).toBe(deltas.join(''))
      expect(final.stop_reason).toBe('max_tokens')
    })

    it('counts tokens with messages.countTokens', async () => {
      const r = await anthropic.messages.countTokens({
        model: 'primary',
        messages: [{ role: 'user', content: 'Hello there' }],
      })
      expect(r.input_tokens).toBeGreaterThan(3)
    })

    it('forces the named tool: a tool_use block with input that matches its schema', async () => {
      const m = await anthropic.messages.create({
        model: 'tools',
        max_tokens: 2000,
        messages: [{ role: 'user', content: 'Weather?' }],
        tools: [
          { name: 'other', input_schema: WEATHER_PARAMS },
          { name: 'get_weather', input_schema: WEATHER_PARAMS },
        ],
        tool_choice: { type: 'tool', name: 'get_weather' },
      })
      expect(m.stop_reason).toBe('tool_use')
      const use = m.content.find((block) => block.type === 'tool_use')
      expect(use).toMatchObject({ type: 'tool_use', name: 'get_weather' })
      expect(Number.isInteger((use as { input: { days: unknown } }).input.days)).toBe(true)
    })

    it("raises the SDK's NotFoundError for an unknown model, with svc's code", async () => {
      const error = await anthropic.messages
        .create({ model: 'no-such-model', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] })
        .catch((e: unknown) => e)
      expect(error).toBeInstanceOf(Anthropic.NotFoundError)
      expect((error as InstanceType<typeof Anthropic.NotFoundError>).error).toMatchObject({
        type: 'error',
        error: { type: 'not_found_error', svc_code: 'model.not_found' },
      })
    })

    it('refuses a bad body in the Anthropic shape (BadRequestError)', async () => {
      const error = await anthropic.messages
        .create({ model: 'primary', max_tokens: 5, messages: 'hi' as never })
        .catch((e: unknown) => e)
      expect(error).toBeInstanceOf(Anthropic.BadRequestError)
      expect((error as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
        error: { type: 'invalid_request_error', svc_code: 'request.invalid', param: 'messages' },
      })
    })
  })
})
