import { describe, expect, it } from 'vitest'
import { hubConfig } from './hub-config'
import { hubModelName, isHubName, parseHubName } from './hub-name'

describe('Hugging Face names', () => {
  it('reads the forms Ollama and llama.cpp use', () => {
    expect(parseHubName('hf.co/unsloth/Qwen3-8B-GGUF:Q4_K_M')).toEqual({
      repo: 'unsloth/Qwen3-8B-GGUF',
      tag: 'Q4_K_M',
    })
    expect(parseHubName('huggingface.co/unsloth/Qwen3-8B-GGUF')).toEqual({ repo: 'unsloth/Qwen3-8B-GGUF' })
    expect(parseHubName('hf:bartowski/Llama-3.2-1B-Instruct-GGUF:q8_0')).toEqual({
      repo: 'bartowski/Llama-3.2-1B-Instruct-GGUF',
      tag: 'q8_0',
    })
    expect(parseHubName('HF.CO/a/b:BF16/b-BF16-00001-of-00002.gguf')).toEqual({
      repo: 'a/b',
      tag: 'BF16/b-BF16-00001-of-00002.gguf',
    })
  })

  it('leaves refs, paths and URLs alone', () => {
    for (const spec of [
      'qwen3-0.6b-q8_0',
      './hf.co/x.gguf',
      'https://hf.co/a/b/resolve/main/x.gguf',
      '/tmp/hf:x',
    ])
      expect(isHubName(spec), spec).toBe(false)
  })

  it('refuses a malformed name with 400 naming the form', () => {
    for (const spec of [
      'hf.co/onlyowner',
      'hf:a/b/c',
      'hf.co/a/..:x',
      'hf.co/a/b:../../etc',
      'hf.co/a/b:',
      'hf:a/b:q 4',
    ]) {
      expect(() => parseHubName(spec), spec).toThrow(/not a Hugging Face name/)
    }
    try {
      parseHubName('hf.co/x')
    } catch (error) {
      expect(error).toMatchObject({ code: 'request.invalid', status: 400, param: 'model' })
    }
  })

  it('names a quant canonically', () => {
    expect(hubModelName('unsloth/Qwen3-8B-GGUF', 'Q4_K_M')).toBe('hf.co/unsloth/Qwen3-8B-GGUF:Q4_K_M')
  })

  it('takes HF_ENDPOINT and HF_TOKEN as given, huggingface.co by default', () => {
    expect(hubConfig({})).toEqual({ hubUrl: 'https://huggingface.co' })
    expect(hubConfig({ HF_ENDPOINT: 'http://127.0.0.1:9/mirror/', HF_TOKEN: ' hf_x ' })).toEqual({
      hubUrl: 'http://127.0.0.1:9/mirror',
      accessToken: 'hf_x',
    })
    expect(() => hubConfig({ HF_ENDPOINT: 'ftp://x' })).toThrow(/http/)
  })
})
