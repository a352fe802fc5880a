/** `samples` of a 440 Hz tone at `rate` Hz (default 16 kHz) as a 16-bit mono PCM WAV. */
export function toneWav(samples: number, rate?: number): Buffer
