/// <reference types="vite/client" />

import { createResampler, floatToPcm16, toBase64 } from './audio-framing'
import workletUrl from './capture-worklet.js?url&no-inline'

export interface MicCapture {
  /** Stops the microphone (its light goes off) and the tap. Idempotent. */
  stop(): void
}

/**
 * Opens the microphone into `context` and calls `onChunk` with each ~40 ms of it as base64 pcm16 at
 * 24 kHz (the Realtime API's `audio/pcm`), resampled from the context's rate. Echo cancellation and
 * noise suppression stay on (the answer plays from the same device). Rejects when the browser or the
 * person refuses the microphone.
 */
export async function captureMicrophone(
  context: AudioContext,
  onChunk: (base64Pcm16: string) => void,
): Promise<MicCapture> {
  const media = await navigator.mediaDevices.getUserMedia({
    audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true },
  })
  try {
    await context.audioWorklet.addModule(workletUrl)
  } catch (error) {
    for (const track of media.getTracks()) track.stop()
    throw error
  }
  const source = context.createMediaStreamSource(media)
  const batch = Math.round(context.sampleRate * 0.04)
  // No outputs: the browser pulls a node without outputs by itself; nothing of the microphone plays.
  const tap = new AudioWorkletNode(context, 'svc-capture', {
    numberOfInputs: 1,
    numberOfOutputs: 0,
    channelCount: 1,
    channelCountMode: 'explicit',
    processorOptions: { batch },
  })
  const resample = createResampler(context.sampleRate)
  tap.port.onmessage = (event: MessageEvent<Float32Array>) => {
    const samples = resample(event.data)
    if (samples.length > 0) onChunk(toBase64(floatToPcm16(samples)))
  }
  source.connect(tap)
  let stopped = false
  return {
    stop() {
      if (stopped) return
      stopped = true
      tap.port.onmessage = null
      source.disconnect()
      tap.disconnect()
      for (const track of media.getTracks()) track.stop()
    },
  }
}
