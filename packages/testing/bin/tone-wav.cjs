/**
 * A sine tone as a 16-bit mono PCM WAV: the audio the fake upstream answers for speech, the Chatterbox
 * stand-in's "voice", and what the tests send to whisper-server. CommonJS (typed by tone-wav.d.cts) so
 * the stand-ins run it with plain node — chatterbox-standin.cjs requires it, fake-upstream's ESM
 * imports it — and the TypeScript tests import the same bytes.
 *
 * It writes its own WAV header rather than use @svc/providers' audio/wav.ts: @svc/testing may import
 * only core and engines (test/boundaries.test.ts), the Chatterbox stand-in copies this one file into
 * its container and requires it with plain node (no TypeScript there), and a fixture written apart
 * from the code under test can catch that code's mistakes.
 */
'use strict'

/** `samples` of a `hz` tone (default 440) at `rate` Hz (default 16 kHz), amplitude 8000. */
function toneWav(samples, { rate = 16000, hz = 440 } = {}) {
  const wav = Buffer.alloc(44 + samples * 2)
  wav.write('RIFF', 0, 'latin1')
  wav.writeUInt32LE(36 + samples * 2, 4)
  wav.write('WAVEfmt ', 8, 'latin1')
  wav.writeUInt32LE(16, 16)
  wav.writeUInt16LE(1, 20) // PCM
  wav.writeUInt16LE(1, 22) // mono
  wav.writeUInt32LE(rate, 24)
  wav.writeUInt32LE(rate * 2, 28)
  wav.writeUInt16LE(2, 32)
  wav.writeUInt16LE(16, 34)
  wav.write('data', 36, 'latin1')
  wav.writeUInt32LE(samples * 2, 40)
  for (let i = 0; i < samples; i++)
    wav.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * hz * i) / rate)), 44 + i * 2)
  return wav
}

module.exports = { toneWav }
