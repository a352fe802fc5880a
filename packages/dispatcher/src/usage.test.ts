import { describe, expect, it } from 'vitest'
import { usageFromTail } from './usage'

// The endings llama-server (b1-de3ff81, the engine setup builds) really sends.
const STREAM_END = `data: {"choices":[{"finish_reason":"length","index":0,"delta":{}}],"created":1795437961,"id":"chatcmpl-g","model":"tiny","system_fingerprint":"b1-de3ff81","object":"chat.completion.chunk","timings":{"cache_n":0,"prompt_n":20,"prompt_ms":0.808,"prompt_per_token_ms":0.0404,"prompt_per_second":24752.4,"predicted_n":8,"predicted_ms":1.342,"predicted_per_token_ms":0.1917,"predicted_per_second":5216.09}}

data: [DONE]

`
const STREAM_END_WITH_USAGE = `data: {"choices":[],"created":1795437961,"id":"chatcmpl-v","model":"tiny","system_fingerprint":"b1-de3ff81","object":"chat.completion.chunk","usage":{"completion_tokens":8,"prompt_tokens":20,"total_tokens":28,"prompt_tokens_details":{"cached_tokens":19}},"timings":{"cache_n":19,"prompt_n":1,"prompt_ms":3.853,"prompt_per_token_ms":3.853,"prompt_per_second":259.5,"predicted_n":8,"predicted_ms":1.272,"predicted_per_token_ms":0.1817,"predicted_per_second":5503.1}}

data: [DONE]

`
const JSON_BODY = `{"choices":[{"finish_reason":"length","index":0,"message":{"role":"assistant","content":"3&fd}s< \\"usage\\": {"}}],"created":1795437961,"model":"tiny","object":"chat.completion","usage":{"completion_tokens":8,"prompt_tokens":20,"total_tokens":28,"prompt_tokens_details":{"cached_tokens":19}},"id":"chatcmpl-q","timings":{"cache_n":19,"prompt_n":1,"prompt_ms":3.747,"predicted_n":8,"predicted_ms":0.745}}`

describe('usageFromTail', () => {
  it('reads a stream that carries only llama.cpp timings (no include_usage)', () => {
    expect(usageFromTail(STREAM_END)).toEqual({ promptTokens: 20, completionTokens: 8, generationMs: 1.342 })
  })

  it('reads a nested usage object (prompt_tokens_details) and the generation time beside it', () => {
    expect(usageFromTail(STREAM_END_WITH_USAGE)).toEqual({
      promptTokens: 20,
      completionTokens: 8,
      generationMs: 1.272,
    })
    expect(usageFromTail(JSON_BODY)).toEqual({ promptTokens: 20, completionTokens: 8, generationMs: 0.745 })
  })

  it("reads the Responses API's and Anthropic's input_tokens/output_tokens (Anthropic's cache reads added back)", () => {
    const responses =
      '{"object":"response","usage":{"input_tokens":20,"output_tokens":8,"total_tokens":28,"input_tokens_details":{"cached_tokens":19}}}'
    expect(usageFromTail(responses)).toEqual({ promptTokens: 20, completionTokens: 8 })
    const messages =
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null},"usage":{"output_tokens":8,"cache_read_input_tokens":19,"input_tokens":1}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n'
    expect(usageFromTail(messages)).toEqual({ promptTokens: 20, completionTokens: 8 })
  })

  it('reads OpenAI usage without timings, and nothing from a tail without either', () => {
    expect(usageFromTail('{"usage":{"prompt_tokens":3,"completion_tokens":5,"total_tokens":8}}')).toEqual({
      promptTokens: 3,
      completionTokens: 5,
    })
    expect(
      usageFromTail('data: {"choices":[{"delta":{"content":"hi"}}]}\n\ndata: [DONE]\n\n'),
    ).toBeUndefined()
    // braces and escaped quotes (an even and an odd run of backslashes) inside strings of the object
    expect(
      usageFromTail('{"usage":{"note":"a \\"}{\\" b \\\\","prompt_tokens":3,"completion_tokens":5},"x":"}"}'),
    ).toEqual({ promptTokens: 3, completionTokens: 5 })
    // cut off by the tail window: nothing rather than a wrong count
    expect(usageFromTail('"usage":{"prompt_tokens":3,"completion_tok')).toBeUndefined()
    expect(usageFromTail('"usage": "none"')).toBeUndefined()
  })

  it('reads the audio seconds of a transcription (OpenAI duration usage, or verbose_json)', () => {
    expect(usageFromTail('{"text":"hi","usage":{"type":"duration","seconds":4}}')).toEqual({
      promptTokens: 0,
      completionTokens: 0,
      audioSeconds: 4,
    })
    expect(
      usageFromTail('{"task":"transcribe","language":"en","duration":2.5,"text":"hi","segments":[]}'),
    ).toEqual({ promptTokens: 0, completionTokens: 0, audioSeconds: 2.5 })
  })
})
