/**
 * The Silero VAD v5 model (the ONNX file `@ricky0123/vad-web` ships: nothing is downloaded at run
 * time) on onnxruntime-web's WebAssembly backend, which runs in Node without a native addon.
 *
 * One inference session per process, loaded on first use (about a second); each detector gets its
 * own recurrent state on top of it (vad-web's `Silero` keeps the state and the 64-sample context).
 * Runs on the shared session are queued one at a time: onnxruntime-web does not promise that
 * concurrent `run` calls on one session are safe. Both libraries are imported on first use, so a
 * process that never detects speech never loads them.
 */
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import { pathToFileURL } from 'node:url'
import type * as Ort from 'onnxruntime-web'

/** Samples the model takes per call at 16 kHz (32 ms). */
export const SILERO_FRAME_SAMPLES = 512

/** One detector's view of the model: speech probability per 512-sample frame, with its own state. */
export interface SpeechModel {
  /** The probability (0..1) that `frame` (exactly 512 samples at 16 kHz) is speech. */
  probability(frame: Float32Array): Promise<number>
}

interface Loaded {
  ort: typeof Ort
  session: Ort.InferenceSession
  Silero: typeof import('@ricky0123/vad-web/dist/models').Silero
}

let loading: Promise<Loaded> | undefined
let queue: Promise<unknown> = Promise.resolve()

async function load(): Promise<Loaded> {
  const ort = await import('onnxruntime-web')
  const { Silero } = await import('@ricky0123/vad-web/dist/models')
  // One thread: the server has other work, and a 32 ms frame is too small to split.
  ort.env.wasm.numThreads = 1
  const require = createRequire(import.meta.url)
  // Where its WebAssembly files are, said outright: in the bundled server (`pnpm build`) onnxruntime
  // would look for them beside the bundle.
  ort.env.wasm.wasmPaths = `${pathToFileURL(dirname(require.resolve('onnxruntime-web'))).href}/`
  const file = require.resolve('@ricky0123/vad-web/dist/silero_vad_v5.onnx')
  const session = await ort.InferenceSession.create(await readFile(file))
  return { ort, session, Silero }
}

/** A fresh detector state on the shared Silero session (loads the session on first use). */
export async function createSileroModel(): Promise<SpeechModel> {
  if (!loading) {
    loading = load()
    loading.catch(() => {
      loading = undefined // a later detector tries again
    })
  }
  const { ort, session, Silero } = await loading
  const zeros = new ort.Tensor('float32', new Float32Array(2 * 128), [2, 1, 128])
  const silero = new Silero(session, zeros, new ort.Tensor('int64', [16000n]), ort)
  return {
    probability(frame) {
      const run = queue.then(() => silero.process(frame))
      queue = run.catch(() => {})
      return run.then((p) => p.isSpeech)
    },
  }
}

/**
 * Loads the shared session ahead of the first detector and runs one silent frame through it, so that
 * a user's first detector pays nothing (a server calls it when its stt slot becomes ready). Shares a
 * load in progress; rejects with the load's failure (a later call tries again).
 */
export async function warmSileroModel(): Promise<void> {
  const model = await createSileroModel()
  await model.probability(new Float32Array(SILERO_FRAME_SAMPLES))
}
