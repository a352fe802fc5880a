/**
 * Voice references uploaded to svc by name, for the voice-cloning TTS model: `<dir>/<name>.<format>`
 * (the audio) and `<dir>/<name>.json` (what is known about it). Both are written atomically (temp
 * file + rename), the audio first: the JSON is the commit, so a crash leaves either a complete voice
 * or none that is listed. Changes are serialised with a lock file, also across processes (the CLI).
 * The references outlive every container: the cloning server gets the reference with each request.
 */
import { createHash } from 'node:crypto'
import { readdir, readFile, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { SvcError } from '@svc/core'
import { withFileLock, writeFileAtomic } from '@svc/core/node'
import { sniffVoiceFormat, VOICE_CONTENT_TYPES, VOICE_FORMATS, type VoiceFormat } from './audio-sniff'

/** Voice names: also file names, so no dots, slashes or spaces. */
export const VOICE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/

export interface StoredVoice {
  name: string
  format: VoiceFormat
  content_type: string
  bytes: number
  sha256: string
  /** BCP 47 / ISO 639-1 language of the speaker, when the uploader said. */
  language: string | null
  /** Epoch seconds. */
  created_at: number
}

export interface VoiceStoreOptions {
  dir: string
  /** Largest reference accepted (bytes). Default 10 MiB, the cloning server's own limit. */
  maxBytes?: number
  /** How many voices may be stored. Default 100. */
  maxVoices?: number
  now?: () => number
}

export interface VoiceStore {
  readonly dir: string
  /** Every complete voice, by name. Never throws for a missing directory. */
  list(): Promise<StoredVoice[]>
  /** One voice with the path of its audio, or undefined. */
  get(name: string): Promise<(StoredVoice & { path: string }) | undefined>
  /**
   * Stores a new voice. Throws 400 `request.invalid` (with `param`) for a bad name, a name that
   * exists, audio that is none of the accepted formats, too large or empty, or a full store.
   */
  add(voice: { name: string; data: Uint8Array; language?: string }): Promise<StoredVoice>
  /** Deletes a voice; false when there was none. */
  remove(name: string): Promise<boolean>
}

export function createVoiceStore(options: VoiceStoreOptions): VoiceStore {
  const { dir } = options
  const maxBytes = options.maxBytes ?? 10 * 1024 * 1024
  const maxVoices = options.maxVoices ?? 100
  const now = options.now ?? Date.now
  const lock = join(dir, 'voices') // withFileLock's directory: <dir>/.voices.lock.d
  const meta = (name: string) => join(dir, `${name}.json`)

  const read = async (name: string): Promise<StoredVoice | undefined> => {
    if (!VOICE_NAME_PATTERN.test(name)) return undefined
    try {
      const voice = JSON.parse(await readFile(meta(name), 'utf8')) as StoredVoice
      const audio = await stat(join(dir, `${name}.${voice.format}`)).catch(() => undefined)
      return audio?.isFile() ? voice : undefined
    } catch {
      return undefined
    }
  }

  const list = async (): Promise<StoredVoice[]> => {
    const names = (await readdir(dir).catch(() => [] as string[]))
      .filter((f) => f.endsWith('.json') && !f.startsWith('.'))
      .map((f) => f.slice(0, -'.json'.length))
    const voices = await Promise.all(names.map(read))
    return voices
      .filter((v): v is StoredVoice => v !== undefined)
      .sort((a, b) => a.name.localeCompare(b.name))
  }

  return {
    dir,
    list,
    async get(name) {
      const voice = await read(name)
      return voice ? { ...voice, path: join(dir, `${name}.${voice.format}`) } : undefined
    },
    async add({ name, data, language }) {
      if (!VOICE_NAME_PATTERN.test(name))
        throw invalid('name', `voice name "${name.slice(0, 80)}" must be 1–64 letters, digits, - or _`)
      if (data.length === 0) throw invalid('audio_sample', 'the voice sample is empty')
      if (data.length > maxBytes)
        throw invalid(
          'audio_sample',
          `the voice sample is larger than ${Math.round(maxBytes / 1024 / 1024)} MB`,
        )
      const format = sniffVoiceFormat(data)
      if (!format)
        throw invalid('audio_sample', `the voice sample must be audio: ${VOICE_FORMATS.join(', ')}`)
      if (language !== undefined && !/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(language))
        throw invalid(
          'language',
          `language "${language.slice(0, 40)}" is not a language tag like en or pt-BR`,
        )
      return withFileLock(lock, async () => {
        if (await read(name)) throw invalid('name', `a voice named "${name}" exists; delete it first`)
        if ((await list()).length >= maxVoices)
          throw invalid('name', `${maxVoices} voices are stored already; delete one first`)
        const voice: StoredVoice = {
          name,
          format,
          content_type: VOICE_CONTENT_TYPES[format],
          bytes: data.length,
          sha256: createHash('sha256').update(data).digest('hex'),
          language: language ?? null,
          created_at: Math.floor(now() / 1000),
        }
        await writeFileAtomic(join(dir, `${name}.${format}`), data)
        await writeFileAtomic(meta(name), `${JSON.stringify(voice, null, 2)}\n`)
        return voice
      })
    },
    async remove(name) {
      if (!VOICE_NAME_PATTERN.test(name)) return false
      return withFileLock(lock, async () => {
        const voice = await read(name)
        if (!voice) return false
        await rm(meta(name), { force: true }) // the commit goes first: a crash after it leaves no listed voice
        await rm(join(dir, `${name}.${voice.format}`), { force: true })
        return true
      })
    },
  }
}

function invalid(param: string, message: string): SvcError {
  return new SvcError('request.invalid', message, { param })
}
