/**
 * The voice mode's microphone tap (an AudioWorklet, plain JavaScript: Vite copies it as it is). It
 * posts the first input channel to the page in batches of about 40 ms (`batch` frames), each a
 * Float32Array the page owns (transferred, not copied).
 */
class CaptureProcessor extends AudioWorkletProcessor {
  constructor(options) {
    super()
    this.batch = options?.processorOptions?.batch ?? 2048
    this.buffer = new Float32Array(this.batch)
    this.filled = 0
  }

  process(inputs) {
    const channel = inputs[0]?.[0]
    if (!channel) return true
    let offset = 0
    while (offset < channel.length) {
      const n = Math.min(channel.length - offset, this.batch - this.filled)
      this.buffer.set(channel.subarray(offset, offset + n), this.filled)
      this.filled += n
      offset += n
      if (this.filled === this.batch) {
        this.port.postMessage(this.buffer, [this.buffer.buffer])
        this.buffer = new Float32Array(this.batch)
        this.filled = 0
      }
    }
    return true
  }
}

registerProcessor('svc-capture', CaptureProcessor)
