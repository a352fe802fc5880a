import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { SvcError } from '@svc/core'
import { buildTinyGguf, buildTinyMmproj, buildTinyWhisper, tempDirs } from '@svc/testing'
import { afterEach, describe, expect, it } from 'vitest'
import { modelFileProblem, refuseNonModel } from './model-header'

const dirs = tempDirs('svc-model-header-')
afterEach(() => dirs.removeAll())

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex')
const safetensors = (json: string) => {
  const length = Buffer.alloc(8)
  length.writeBigUInt64LE(BigInt(Buffer.byteLength(json)))
  return Buffer.concat([length, Buffer.from(json), Buffer.alloc(16)])
}

async function file(name: string, bytes: Buffer | string): Promise<string> {
  const path = join(await dirs.make(), name)
  await writeFile(path, bytes)
  return path
}

describe('model headers', () => {
  const gguf = buildTinyGguf({ role: 'chat' }).bytes

  it('takes a whole GGUF (a model, a projector)', async () => {
    expect(await modelFileProblem(await file('m.gguf', gguf), 'gguf')).toBeUndefined()
    expect(await modelFileProblem(await file('p.gguf', buildTinyMmproj().bytes), 'gguf')).toBeUndefined()
  })

  it('says where a truncated GGUF ends: in its header, or in the tensor data it describes', async () => {
    expect(await modelFileProblem(await file('a.gguf', gguf.subarray(0, 100)), 'gguf')).toBe(
      'a truncated GGUF: header ends at byte 100',
    )
    const half = Math.floor(gguf.length / 2)
    expect(await modelFileProblem(await file('b.gguf', gguf.subarray(0, half)), 'gguf')).toMatch(
      new RegExp(`^a truncated GGUF: its tensor data ends at byte ${gguf.length}, the file at byte ${half}$`),
    )
    expect(await modelFileProblem(await file('c.gguf', gguf.subarray(0, gguf.length - 1)), 'gguf')).toMatch(
      /^a truncated GGUF: its tensor data ends/,
    )
  })

  it('refuses a GGUF version it cannot read', async () => {
    const v7 = Buffer.from(gguf)
    v7.writeUInt32LE(7, 4)
    expect(await modelFileProblem(await file('v7.gguf', v7), 'gguf')).toBe(
      'GGUF version 7 is not supported (svc reads versions 2 and 3)',
    )
  })

  it('names what a file is instead: text, an image, an HTML page, nothing', async () => {
    const cases: [string, Buffer | string, string][] = [
      ['notes.gguf', 'just some notes\nabout a model\n', 'a text file'],
      ['unicode.gguf', 'Grüße – ☃\n', 'a text file'],
      ['cat.gguf', PNG, 'a PNG image'],
      ['login.gguf', '<!DOCTYPE html><html><body>sign in</body></html>', 'an HTML page'],
      ['empty.gguf', '', 'an empty file'],
      [
        'noise.gguf',
        Buffer.from([0, 1, 2, 3, 4, 5]),
        'a file of unknown format (it starts with 00 01 02 03)',
      ],
    ]
    for (const [name, bytes, found] of cases)
      expect(await modelFileProblem(await file(name, bytes), 'gguf')).toBe(
        `expected a GGUF model, found ${found}`,
      )
  })

  it("takes whisper.cpp's ggml models and GGUF for whisper, nothing else", async () => {
    expect(await modelFileProblem(await file('w.bin', buildTinyWhisper().bytes), 'whisper')).toBeUndefined()
    expect(await modelFileProblem(await file('g.bin', gguf), 'whisper')).toBeUndefined()
    expect(await modelFileProblem(await file('t.bin', 'hello'), 'whisper')).toBe(
      'expected a whisper model (ggml or GGUF), found a text file',
    )
  })

  it('checks safetensors by their JSON header and .ckpt by its zip or pickle magic', async () => {
    const ok = safetensors('{"w":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}}')
    expect(await modelFileProblem(await file('m.safetensors', ok), 'checkpoint')).toBeUndefined()
    expect(await modelFileProblem(await file('cut.safetensors', ok.subarray(0, 20)), 'checkpoint')).toBe(
      `a truncated safetensors file: its header ends at byte ${ok.length - 16}, the file at byte 20`,
    )
    expect(await modelFileProblem(await file('cat.safetensors', PNG), 'checkpoint')).toBe(
      'expected a safetensors file, found a PNG image',
    )
    expect(
      await modelFileProblem(await file('m.ckpt', Buffer.from('PK\x03\x04rest', 'latin1')), 'checkpoint'),
    ).toBeUndefined()
    expect(await modelFileProblem(await file('m.ckpt', 'text'), 'checkpoint')).toBe(
      'expected a PyTorch checkpoint (zip or pickle), found a text file',
    )
  })

  it('leaves formats it does not know to their provider', async () => {
    expect(await modelFileProblem(await file('voice.pt', 'anything'), 'kokoro')).toBeUndefined()
  })

  it('refuses with 400 request.invalid, saying where the file came from', async () => {
    const path = await file('notes.gguf', 'hello')
    const error = await refuseNonModel(path, 'gguf', `the local file ${path}`).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(SvcError)
    expect(error).toMatchObject({
      code: 'request.invalid',
      status: 400,
      message: `the local file ${path} is not a model svc can load: expected a GGUF model, found a text file`,
    })
    expect(await readFile(path, 'utf8')).toBe('hello')
    await expect(refuseNonModel(path, 'gguf', 'the projector', 'mmproj')).rejects.toMatchObject({
      param: 'mmproj',
    })
  })
})
