/**
 * The parts of a whisper ggml file that are not weights: a stand-in text vocabulary and a mel filter
 * bank. whisper.cpp's token ids are fixed (text tokens 0–50255, `<|endoftext|>` 50256, then the special
 * and timestamp tokens), so the vocabulary must have exactly those text slots; the loader names the
 * special tokens itself.
 */

/** Text tokens of the GPT-2 vocabulary whisper uses; ids from here on are special (EOT = 50256). */
export const WHISPER_TEXT_TOKENS = 50_256
/** `n_vocab` of English-only models. */
export const WHISPER_VOCAB_EN = 51_864
/** `n_vocab` of multilingual models (one more: the extra language slot shifts every special token). */
export const WHISPER_VOCAB_MULTILINGUAL = 51_865
/** Mel bins of every whisper model before large-v3. */
export const WHISPER_N_MELS = 80
/** `1 + WHISPER_N_FFT / 2` frequency bins (n_fft 400 at 16 kHz). */
export const WHISPER_FFT_BINS = 201

const ONSETS = ['b', 'd', 'f', 'g', 'h', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'w', 'z']
const VOWELS = ['a', 'e', 'i', 'o', 'u']

/** GPT-2's id of `" "`: whisper.cpp looks this token up by text (it suppresses it at the start). */
const SPACE_ID = 220

/**
 * Stand-in text tokens: deterministic pronounceable syllables (`" ka"`, `"lomi"`, …), a leading space
 * on every third one like GPT-2's word-initial tokens, all distinct, and `" "` where GPT-2 has it.
 * Random weights then transcribe to readable gibberish instead of raw bytes.
 */
export function whisperTextTokens(count = WHISPER_TEXT_TOKENS): string[] {
  const syllables = ONSETS.flatMap((c) => VOWELS.map((v) => c + v))
  const tokens: string[] = []
  for (let i = 0; i < count; i++) {
    let n = i
    let word = ''
    do {
      word += syllables[n % syllables.length]
      n = Math.floor(n / syllables.length)
    } while (n > 0)
    tokens.push(i === SPACE_ID ? ' ' : i % 3 === 0 ? ` ${word}` : word)
  }
  return tokens
}

/**
 * A triangular mel filter bank (HTK mel scale, 0–8 kHz), `nMels` rows of {@link WHISPER_FFT_BINS}
 * weights, row-major as whisper.cpp reads it. Close enough to librosa's for a random-weight model.
 */
export function melFilters(nMels = WHISPER_N_MELS, sampleRate = 16_000): Float32Array {
  const bins = WHISPER_FFT_BINS
  const toMel = (hz: number) => 2595 * Math.log10(1 + hz / 700)
  const toHz = (mel: number) => 700 * (10 ** (mel / 2595) - 1)
  const top = toMel(sampleRate / 2)
  const edges = Array.from({ length: nMels + 2 }, (_, i) => toHz((top * i) / (nMels + 1)))
  const binHz = sampleRate / 2 / (bins - 1)
  const out = new Float32Array(nMels * bins)
  for (let m = 0; m < nMels; m++) {
    const lo = edges[m] ?? 0
    const mid = edges[m + 1] ?? 0
    const hi = edges[m + 2] ?? 0
    for (let b = 0; b < bins; b++) {
      const hz = b * binHz
      const up = (hz - lo) / (mid - lo)
      const down = (hi - hz) / (hi - mid)
      out[m * bins + b] = Math.max(0, Math.min(up, down))
    }
  }
  return out
}
