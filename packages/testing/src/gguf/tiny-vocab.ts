/**
 * A tiny GPT-2-style byte-level BPE vocabulary that llama.cpp accepts (`tokenizer.ggml.model = "gpt2"`):
 * the 256 byte tokens (so any input text tokenizes), a handful of merges, and the ChatML special tokens.
 */

/** llama.cpp token types (`gguf-py` `TokenType`). */
const NORMAL = 1
const CONTROL = 3
const USER_DEFINED = 4

/**
 * The Hermes/Qwen tool-call markers as single tokens (tool models only). The opening one carries its
 * newline: llama-server's grammar lets text before a call contain `<tool_call>` but not
 * `<tool_call>\n`, so only this token cannot be mistaken for text.
 */
export const TOOL_CALL_TOKENS = ['<tool_call>\n', '</tool_call>'] as const

/** Special tokens, appended after the byte and merged tokens. */
export const SPECIAL_TOKENS = ['<|endoftext|>', '<|im_start|>', '<|im_end|>'] as const

/** Merges as `left right` pairs of byte-level strings (`Ġ` is the space byte), in rank order. */
const MERGES: readonly (readonly [string, string])[] = [
  ['Ġ', 't'],
  ['h', 'e'],
  ['i', 'n'],
  ['e', 'r'],
  ['a', 'n'],
  ['o', 'n'],
  ['Ġ', 'a'],
  ['r', 'e'],
  ['Ġ', 's'],
  ['Ġt', 'he'],
  ['Ġ', 'w'],
  ['o', 'u'],
]

/**
 * GPT-2's `bytes_to_unicode`: printable Latin-1 bytes map to themselves, the rest to code points from
 * U+0100 up, so every byte is one visible character (byte 0x20, the space, becomes `Ġ`).
 */
export function bytesToUnicode(): string[] {
  const printable = (b: number) =>
    (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff)
  const out: string[] = new Array(256)
  let next = 0
  for (let b = 0; b < 256; b++) out[b] = String.fromCodePoint(printable(b) ? b : 256 + next++)
  return out
}

export interface TinyVocab {
  tokens: string[]
  tokenTypes: number[]
  merges: string[]
  bosId: number
  eosId: number
  /** `<tool_call>`, when built with tool tokens. */
  toolCallId?: number
  /**
   * Ids the sampler must never pick, so random weights only ever emit printable ASCII (and never EOS
   * when asked). `newline` keeps `\n` pickable (a tool call's grammar needs it).
   */
  suppress(options: { eos: boolean; newline?: boolean }): number[]
}

/**
 * Builds the vocabulary. Ids 0..255 are the bytes (id = byte value), then one token per merge, then
 * {@link SPECIAL_TOKENS}. BOS is `<|endoftext|>`, EOS is `<|im_end|>` (what ChatML models use).
 */
export function buildTinyVocab(options: { toolTokens?: boolean } = {}): TinyVocab {
  const tokens = bytesToUnicode()
  const tokenTypes = tokens.map(() => NORMAL)
  for (const [a, b] of MERGES) {
    tokens.push(a + b)
    tokenTypes.push(NORMAL)
  }
  const specialBase = tokens.length
  for (const s of SPECIAL_TOKENS) {
    tokens.push(s)
    tokenTypes.push(CONTROL)
  }
  const bosId = specialBase
  const imStart = specialBase + 1
  const eosId = specialBase + 2
  const toolCallId = options.toolTokens ? tokens.length : undefined
  if (options.toolTokens) {
    for (const s of TOOL_CALL_TOKENS) {
      tokens.push(s)
      tokenTypes.push(USER_DEFINED)
    }
  }
  return {
    tokens,
    tokenTypes,
    merges: MERGES.map(([a, b]) => `${a} ${b}`),
    bosId,
    eosId,
    ...(toolCallId === undefined ? {} : { toolCallId }),
    suppress({ eos, newline }) {
      const ids: number[] = []
      for (let b = 0; b < 256; b++) if ((b < 0x20 || b > 0x7e) && !(newline && b === 0x0a)) ids.push(b)
      ids.push(bosId, imStart)
      if (eos) ids.push(eosId)
      return ids
    },
  }
}
