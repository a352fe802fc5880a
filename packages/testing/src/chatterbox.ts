/**
 * The Chatterbox TTS API stand-in (`bin/chatterbox-standin.cjs`, see its header for the protocol it
 * follows) as tests use it: started on the host, or baked with the host's node into a container image
 * that runs the way the real image does (`python main.py` in /app, configured by env).
 */
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { buildRootfsImage } from './docker'

/** The stand-in script on this machine. */
export const CHATTERBOX_STANDIN = fileURLToPath(new URL('../bin/chatterbox-standin.cjs', import.meta.url))

/** The WAV writer the stand-in requires from beside it. */
const TONE_WAV = fileURLToPath(new URL('../bin/tone-wav.cjs', import.meta.url))

type StandInModule = typeof import('../bin/chatterbox-standin.cjs')
const standIn = createRequire(import.meta.url)(CHATTERBOX_STANDIN) as StandInModule

/**
 * The audio the stand-in answers for `text` spoken in the voice of `reference` (the voice sample's
 * bytes): a deterministic WAV, so a test can tell which reference reached the engine.
 */
export function chatterboxStandInSpeech(text: string, reference: Uint8Array): Buffer {
  return standIn.synthesize(text, reference)
}

export interface ChatterboxStandIn extends AsyncDisposable {
  url: string
}

/** Starts the stand-in in this process on 127.0.0.1 and a free port (`STANDIN_INIT_MS` 0 by default). */
export async function startChatterboxStandIn(
  env: Record<string, string | undefined> = {},
): Promise<ChatterboxStandIn> {
  const server = standIn.createStandIn({ STANDIN_INIT_MS: '0', ...env })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    async [Symbol.asyncDispose]() {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

/**
 * `docker import`s an image that runs the stand-in like the real image runs its server: WORKDIR /app,
 * `main.py` there (the stand-in), and the host's node as the program (the manifest entry's
 * `program`, since the image has no python). Returns the image id.
 */
export async function buildChatterboxStandInImage(tag: string): Promise<string> {
  return buildRootfsImage({
    tag,
    binaries: [process.execPath],
    files: { '/app/main.py': CHATTERBOX_STANDIN, '/app/tone-wav.cjs': TONE_WAV },
    workdir: '/app',
  })
}
