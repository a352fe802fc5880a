/** One `response_format`: its content type, and ffmpeg's output options (null: the WAV as it is). */
export interface SpeechFormatSpec {
  readonly type: string
  readonly ffmpeg: readonly string[] | null
}

/** The speech encodings svc offers, by `response_format` name. */
export declare const SPEECH_FORMATS: {
  readonly [F in 'wav' | 'pcm' | 'mp3' | 'opus' | 'aac' | 'flac']: SpeechFormatSpec
}
