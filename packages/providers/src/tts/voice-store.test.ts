import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { sniffVoiceFormat } from './audio-sniff'
import { createVoiceStore, type VoiceStore } from './voice-store'

const wav = Buffer.concat([Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt ', 'latin1'), Buffer.alloc(40)])

describe('voice references', () => {
  let dir: string
  let store: VoiceStore
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-voices-'))
    store = createVoiceStore({ dir, maxVoices: 2, maxBytes: 1000, now: () => 1_700_000_000_000 })
  })
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('stores a voice as its audio and a JSON record, and lists it', async () => {
    const voice = await store.add({ name: 'grandpa', data: wav, language: 'en' })
    expect(voice).toMatchObject({
      name: 'grandpa',
      format: 'wav',
      bytes: wav.length,
      created_at: 1_700_000_000,
    })
    expect((await readdir(dir)).sort()).toEqual(['grandpa.json', 'grandpa.wav'])
    expect(await readFile(join(dir, 'grandpa.wav'))).toEqual(wav)
    expect((await store.list()).map((v) => v.name)).toEqual(['grandpa'])
    expect((await store.get('grandpa'))?.path).toBe(join(dir, 'grandpa.wav'))
  })

  it('does not list a voice whose audio is gone (a half-finished delete or a crash)', async () => {
    await store.add({ name: 'a', data: wav })
    await rm(join(dir, 'a.wav'))
    expect(await store.list()).toEqual([])
    expect(await store.get('a')).toBeUndefined()
  })

  it('refuses bad names, existing names, non-audio, oversize samples and a full store, naming the field', async () => {
    await expect(store.add({ name: '../x', data: wav })).rejects.toMatchObject({ status: 400, param: 'name' })
    await expect(store.add({ name: 'x', data: Buffer.from('hello') })).rejects.toMatchObject({
      param: 'audio_sample',
    })
    await expect(store.add({ name: 'x', data: Buffer.alloc(2000, 1) })).rejects.toMatchObject({
      param: 'audio_sample',
      message: expect.stringContaining('larger'),
    })
    await expect(store.add({ name: 'x', data: wav, language: 'english!' })).rejects.toMatchObject({
      param: 'language',
    })
    await store.add({ name: 'a', data: wav })
    await expect(store.add({ name: 'a', data: wav })).rejects.toMatchObject({
      param: 'name',
      message: expect.stringContaining('exists'),
    })
    await store.add({ name: 'b', data: wav })
    await expect(store.add({ name: 'c', data: wav })).rejects.toMatchObject({
      message: expect.stringContaining('2 voices'),
    })
  })

  it('keeps one of two concurrent uploads of the same name whole', async () => {
    const other = Buffer.concat([wav, Buffer.from('second')])
    const results = await Promise.allSettled([
      store.add({ name: 'same', data: wav }),
      createVoiceStore({ dir }).add({ name: 'same', data: other }),
    ])
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
    const kept = await store.get('same')
    expect([wav.length, other.length]).toContain(kept?.bytes)
    expect((await readFile(kept!.path)).length).toBe(kept?.bytes)
  })

  it('removes a voice, and says false for one that is not there', async () => {
    await store.add({ name: 'a', data: wav })
    expect(await store.remove('a')).toBe(true)
    expect(await store.remove('a')).toBe(false)
    expect(await readdir(dir)).toEqual([])
  })

  it('tells audio formats from their first bytes', () => {
    expect(sniffVoiceFormat(wav)).toBe('wav')
    expect(sniffVoiceFormat(Buffer.from('fLaC\0\0\0\x22'))).toBe('flac')
    expect(sniffVoiceFormat(Buffer.from('OggS\0\x02'))).toBe('ogg')
    expect(sniffVoiceFormat(Buffer.from('ID3\x04\0'))).toBe('mp3')
    expect(sniffVoiceFormat(Buffer.from([0xff, 0xfb, 0x90, 0x64]))).toBe('mp3')
    expect(sniffVoiceFormat(Buffer.from('\0\0\0\x20ftypM4A '))).toBe('m4a')
    expect(sniffVoiceFormat(Buffer.from('{"not":"audio"}'))).toBeUndefined()
    expect(sniffVoiceFormat(Buffer.alloc(0))).toBeUndefined()
  })
})
