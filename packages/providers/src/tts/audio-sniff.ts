/**
 * What kind of audio file a voice reference is, from its first bytes (not from a file name or a
 * content type a client chose). Only the formats the voice-cloning server accepts as a reference:
 * Chatterbox TTS API takes .mp3, .wav, .flac, .m4a and .ogg.
 */

export const VOICE_FORMATS = ['wav', 'mp3', 'flac', 'ogg', 'm4a'] as const
export type VoiceFormat = (typeof VOICE_FORMATS)[number]

export const VOICE_CONTENT_TYPES: Record<VoiceFormat, string> = {
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
  flac: 'audio/flac',
  ogg: 'audio/ogg',
  m4a: 'audio/mp4',
}

const ascii = (bytes: Uint8Array, at: number, text: string) =>
  bytes.length >= at + text.length &&
  Buffer.from(bytes.subarray(at, at + text.length)).toString('latin1') === text

/** The format of `bytes`, or undefined when it is none of {@link VOICE_FORMATS}. */
export function sniffVoiceFormat(bytes: Uint8Array): VoiceFormat | undefined {
  if (ascii(bytes, 0, 'RIFF') && ascii(bytes, 8, 'WAVE')) return 'wav'
  if (ascii(bytes, 0, 'fLaC')) return 'flac'
  if (ascii(bytes, 0, 'OggS')) return 'ogg'
  if (ascii(bytes, 4, 'ftyp')) return 'm4a'
  // An ID3 tag, or an MPEG audio frame sync (11 set bits) with layer III.
  if (ascii(bytes, 0, 'ID3')) return 'mp3'
  const [a, b] = [bytes[0] ?? 0, bytes[1] ?? 0]
  if (a === 0xff && (b & 0xe0) === 0xe0 && (b & 0x06) === 0x02) return 'mp3'
  return undefined
}
