import type { ModelEntry } from '@svc/core'

/** The catalogue ids of the tts engines' built-in models. */
const TTS_IDS = { 'espeak-ng': 'espeak-ng', kokoro: 'kokoro-82m', chatterbox: 'chatterbox' } as const

/**
 * A built-in tts model as the catalogue lists it (`format: builtin`, no file on disk) for the engine
 * `family`; `extra` adds or overrides fields (e.g. `extraCapabilities`).
 */
export function ttsModel(family: keyof typeof TTS_IDS, extra: Partial<ModelEntry> = {}): ModelEntry {
  return { id: TTS_IDS[family], format: 'builtin', provider: 'tts', source: 'catalogue', family, ...extra }
}
