/**
 * The speech encodings svc offers (`response_format`): content type and ffmpeg output options per
 * format, all mono 24 kHz; `ffmpeg: null` is the engine's WAV as it is. One table for the espeak-ng
 * server (this folder, run by plain node) and for src/tts/wav-encode.ts (engines that answer WAV), so
 * both speak the same formats. Plain JavaScript with its types in speech-formats.d.mts: the server
 * runs with no build and no TypeScript loader, and TypeScript imports it as it is.
 */
const ENCODE = ['-ar', '24000', '-ac', '1']

export const SPEECH_FORMATS = {
  wav: { type: 'audio/wav', ffmpeg: null },
  pcm: { type: 'audio/pcm', ffmpeg: [...ENCODE, '-f', 's16le'] },
  mp3: { type: 'audio/mpeg', ffmpeg: [...ENCODE, '-c:a', 'libmp3lame', '-b:a', '64k', '-f', 'mp3'] },
  opus: { type: 'audio/opus', ffmpeg: [...ENCODE, '-c:a', 'libopus', '-b:a', '32k', '-f', 'ogg'] },
  aac: { type: 'audio/aac', ffmpeg: [...ENCODE, '-c:a', 'aac', '-b:a', '64k', '-f', 'adts'] },
  flac: { type: 'audio/flac', ffmpeg: [...ENCODE, '-c:a', 'flac', '-f', 'flac'] },
}
