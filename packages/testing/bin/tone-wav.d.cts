/** `samples` of a `hz` tone (default 440) at `rate` Hz (default 16 kHz) as a 16-bit mono PCM WAV. */
export function toneWav(samples: number, options?: { rate?: number; hz?: number }): Buffer
