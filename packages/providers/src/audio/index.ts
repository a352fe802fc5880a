/** Audio helpers for the voice paths: decoding, PCM conversions, WAV, and the voice-activity detector. */
export * from './decode-audio'
export * from './pcm'
export * from './split-at-pauses'
export * from './vad'
export * from './wav'
