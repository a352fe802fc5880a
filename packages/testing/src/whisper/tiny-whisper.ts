/**
 * A tiny random-weight whisper model in the legacy ggml `.bin` format that whisper.cpp's
 * `whisper_model_load` reads (src/whisper.cpp): magic, hparams, mel filters, vocabulary, then every
 * tensor as `n_dims, name length, type, ne[], name, data`. The real `whisper-server` loads it and
 * transcribes (gibberish, quickly), so tests need no model download.
 */
import { writeFile } from 'node:fs/promises'
import { rng } from '../rng'
import {
  melFilters,
  WHISPER_FFT_BINS,
  WHISPER_N_MELS,
  WHISPER_VOCAB_EN,
  WHISPER_VOCAB_MULTILINGUAL,
  whisperTextTokens,
} from './whisper-vocab'

/** `GGML_FILE_MAGIC`, "ggml". */
const GGML_MAGIC = 0x67676d6c
/** ggml_type GGML_TYPE_F32; ftype 0 = every weight f32. */
const TYPE_F32 = 0

export interface TinyWhisperOptions {
  /** Seeds the weights; the same options always give the same bytes. Default 1. */
  seed?: number
  /** Width of encoder and decoder (`n_audio_state` = `n_text_state`). Default 32. */
  nState?: number
  /** Attention heads (must divide `nState`). Default 4. */
  nHead?: number
  /** Encoder blocks. Default 1. */
  nAudioLayer?: number
  /** Decoder blocks. Default 1. */
  nTextLayer?: number
  /** Encoder positions: 1500 = a full 30 s window, as in every real model. Default 1500. */
  nAudioCtx?: number
  /** Decoder positions; whisper decodes at most `nTextCtx / 2` tokens per window. Default 64. */
  nTextCtx?: number
  /** A multilingual vocabulary (language detection runs) instead of an English-only one. Default false. */
  multilingual?: boolean
}

/** What was written, for assertions. */
export interface TinyWhisper {
  path: string
  bytes: number
  nVocab: number
  nState: number
  multilingual: boolean
}

interface Tensor {
  name: string
  dims: number[]
  data: Float32Array
}

/** The tensors of a whisper model with these dims, in whisper.cpp's names and ggml order (ne[0] first). */
function tensors(o: Required<Omit<TinyWhisperOptions, 'multilingual'>>, nVocab: number): Tensor[] {
  const random = rng(o.seed)
  const s = o.nState
  const uniform = (n: number, scale: number) => {
    const a = new Float32Array(n)
    for (let i = 0; i < n; i++) a[i] = (random() * 2 - 1) * scale
    return a
  }
  const product = (dims: number[]) => dims.reduce((a, b) => a * b, 1)
  // Weights scaled like a fresh init (±1/sqrt(fan_in)); layer norms start at identity.
  const weight = (name: string, dims: number[], fanIn = dims[0] ?? 1): Tensor => ({
    name,
    dims,
    data: uniform(product(dims), 1 / Math.sqrt(fanIn)),
  })
  const fill = (name: string, dims: number[], value: number): Tensor => ({
    name,
    dims,
    data: new Float32Array(product(dims)).fill(value),
  })
  const norm = (prefix: string) => [fill(`${prefix}.weight`, [s], 1), fill(`${prefix}.bias`, [s], 0)]
  const attention = (prefix: string) => [
    weight(`${prefix}.query.weight`, [s, s]),
    fill(`${prefix}.query.bias`, [s], 0),
    weight(`${prefix}.key.weight`, [s, s]),
    weight(`${prefix}.value.weight`, [s, s]),
    fill(`${prefix}.value.bias`, [s], 0),
    weight(`${prefix}.out.weight`, [s, s]),
    fill(`${prefix}.out.bias`, [s], 0),
  ]
  const block = (prefix: string) => [
    ...norm(`${prefix}.mlp_ln`),
    weight(`${prefix}.mlp.0.weight`, [s, 4 * s]),
    fill(`${prefix}.mlp.0.bias`, [4 * s], 0),
    weight(`${prefix}.mlp.2.weight`, [4 * s, s]),
    fill(`${prefix}.mlp.2.bias`, [s], 0),
    ...norm(`${prefix}.attn_ln`),
    ...attention(`${prefix}.attn`),
  ]

  const out: Tensor[] = [
    weight('encoder.positional_embedding', [s, o.nAudioCtx], 100),
    weight('encoder.conv1.weight', [3, WHISPER_N_MELS, s], 3 * WHISPER_N_MELS),
    fill('encoder.conv1.bias', [1, s], 0),
    weight('encoder.conv2.weight', [3, s, s], 3 * s),
    fill('encoder.conv2.bias', [1, s], 0),
    ...norm('encoder.ln_post'),
  ]
  for (let i = 0; i < o.nAudioLayer; i++) out.push(...block(`encoder.blocks.${i}`))
  out.push(
    weight('decoder.positional_embedding', [s, o.nTextCtx], 100),
    weight('decoder.token_embedding.weight', [s, nVocab], 1),
    ...norm('decoder.ln'),
  )
  for (let i = 0; i < o.nTextLayer; i++) {
    const prefix = `decoder.blocks.${i}`
    out.push(...block(prefix), ...norm(`${prefix}.cross_attn_ln`), ...attention(`${prefix}.cross_attn`))
  }
  return out
}

/** Builds the file's bytes (pure; see {@link writeTinyWhisper}). Throws on inconsistent dims. */
export function buildTinyWhisper(options: TinyWhisperOptions = {}): {
  bytes: Buffer
  info: Omit<TinyWhisper, 'path'>
} {
  const o = {
    seed: options.seed ?? 1,
    nState: options.nState ?? 32,
    nHead: options.nHead ?? 4,
    nAudioLayer: options.nAudioLayer ?? 1,
    nTextLayer: options.nTextLayer ?? 1,
    nAudioCtx: options.nAudioCtx ?? 1500,
    nTextCtx: options.nTextCtx ?? 64,
  }
  if (o.nState % o.nHead !== 0) throw new Error(`nState ${o.nState} is not divisible by nHead ${o.nHead}`)
  const multilingual = options.multilingual ?? false
  const nVocab = multilingual ? WHISPER_VOCAB_MULTILINGUAL : WHISPER_VOCAB_EN

  const chunks: Buffer[] = []
  const ints = (...values: number[]) => {
    const b = Buffer.alloc(4 * values.length)
    for (const [i, v] of values.entries()) b.writeInt32LE(v, 4 * i)
    chunks.push(b)
  }
  const floats = (data: Float32Array) =>
    chunks.push(Buffer.from(data.buffer, data.byteOffset, data.byteLength))

  chunks.push(Buffer.from(Uint32Array.of(GGML_MAGIC).buffer))
  // n_vocab, n_audio_ctx, n_audio_state, n_audio_head, n_audio_layer, n_text_ctx, n_text_state,
  // n_text_head, n_text_layer, n_mels, ftype
  ints(nVocab, o.nAudioCtx, o.nState, o.nHead, o.nAudioLayer, o.nTextCtx, o.nState, o.nHead, o.nTextLayer)
  ints(WHISPER_N_MELS, TYPE_F32)
  ints(WHISPER_N_MELS, WHISPER_FFT_BINS)
  floats(melFilters(WHISPER_N_MELS))
  // Only the text tokens: the loader names EOT, SOT, languages, tasks and timestamps itself.
  const tokens = whisperTextTokens()
  ints(tokens.length)
  for (const token of tokens) {
    const b = Buffer.from(token, 'utf8')
    ints(b.length)
    chunks.push(b)
  }
  for (const t of tensors(o, nVocab)) {
    const name = Buffer.from(t.name, 'utf8')
    ints(t.dims.length, name.length, TYPE_F32, ...t.dims)
    chunks.push(name)
    floats(t.data)
  }
  const bytes = Buffer.concat(chunks)
  return { bytes, info: { bytes: bytes.length, nVocab, nState: o.nState, multilingual } }
}

/**
 * Writes a tiny random-weight whisper model (a few MB, almost all of it the token embedding that
 * whisper's fixed 51,864-token vocabulary needs) that the real `whisper-server` loads and answers
 * transcriptions with. Overwrites `path`; deterministic for the same options.
 */
export async function writeTinyWhisper(path: string, options: TinyWhisperOptions = {}): Promise<TinyWhisper> {
  const { bytes, info } = buildTinyWhisper(options)
  await writeFile(path, bytes)
  return { path, ...info }
}
