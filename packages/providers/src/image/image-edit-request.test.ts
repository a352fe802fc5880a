import { SvcError } from '@svc/core'
import { describe, expect, it } from 'vitest'
import { editSize, editTemplateId } from './image-edit'
import { formFields, parseEditForm } from './image-edit-request'
import type { WorkflowTemplate } from './workflow-template'

/** A PNG header of `width × height` (colour type 6 = RGBA when `alpha`); the parser reads no pixels. */
function png(width: number, height: number, alpha = false): Blob {
  const b = Buffer.alloc(45)
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b, 0)
  b.writeUInt32BE(13, 8)
  b.write('IHDR', 12, 'latin1')
  b.writeUInt32BE(width, 16)
  b.writeUInt32BE(height, 20)
  b[24] = 8
  b[25] = alpha ? 6 : 2
  b.write('IDAT', 37, 'latin1')
  return new Blob([new Uint8Array(b)])
}

function form(fields: Record<string, string>, files: [string, Blob][] = [['image', png(64, 64)]]): FormData {
  const f = new FormData()
  for (const [k, v] of Object.entries(fields)) f.append(k, v)
  for (const [k, blob] of files) f.append(k, blob, `${k}.png`)
  return f
}

async function refusal(promise: Promise<unknown>): Promise<{ param: string | null; message: string }> {
  const error = await promise.catch((e: unknown) => e)
  expect(error).toBeInstanceOf(SvcError)
  return { param: (error as SvcError).param ?? null, message: (error as SvcError).message }
}

describe('parseEditForm', () => {
  it('reads numbers from their text, seeds exactly, extensions also as extra_body[name]', async () => {
    const job = await parseEditForm(
      form({
        prompt: 'a hat',
        n: '2',
        strength: '0.4',
        seed: '18446744073709551615',
        'extra_body[steps]': '3',
      }),
      false,
    )
    expect(job).toMatchObject({ prompt: 'a hat', n: 2, strength: 0.4, seed: 18446744073709551615n, steps: 3 })
    expect(job.image.facts).toEqual({ format: 'png', width: 64, height: 64, hasAlpha: false })
    expect(job.mask).toBeUndefined()
    expect(formFields(form({ n: 'two' })).n).toBe('two') // not a number: the schema refuses it, with its name
  })

  it('takes the image under image[] as the openai client sends a list, and a mask of its size with alpha', async () => {
    const job = await parseEditForm(
      form({ prompt: 'x' }, [
        ['image[]', png(32, 16)],
        ['mask', png(32, 16, true)],
      ]),
      false,
    )
    expect(job.mask?.facts).toMatchObject({ width: 32, height: 16, hasAlpha: true })
    expect(editTemplateId('sdxl-turbo', job)).toBe('sdxl-turbo.inpaint')
    expect(editTemplateId('sdxl-turbo', {})).toBe('sdxl-turbo.img2img')
  })

  it('takes a variation without prompt, and refuses an edit without one', async () => {
    expect((await parseEditForm(form({}), true)).prompt).toBe('')
    expect((await refusal(parseEditForm(form({}), false))).param).toBe('prompt')
    expect(
      (
        await refusal(
          parseEditForm(
            form({}, [
              ['image', png(8, 8)],
              ['mask', png(8, 8, true)],
            ]),
            true,
          ),
        )
      ).param,
    ).toBe('mask')
  })

  it.each([
    ['no image', form({ prompt: 'x' }, []), 'image', /required/],
    [
      'two images',
      form({ prompt: 'x' }, [
        ['image[]', png(8, 8)],
        ['image[]', png(8, 8)],
      ]),
      'image',
      /one image/,
    ],
    [
      'an image as text',
      (() => {
        const f = form({ prompt: 'x' }, [])
        f.append('image', 'abc')
        return f
      })(),
      'image',
      /file upload/,
    ],
    ['a GIF', form({ prompt: 'x' }, [['image', new Blob(['GIF89a....'])]]), 'image', /PNG, JPEG or WebP/],
    ['an image over 4096 px', form({ prompt: 'x' }, [['image', png(4097, 10)]]), 'image', /4097×10/],
    [
      'a mask without alpha',
      form({ prompt: 'x' }, [
        ['image', png(8, 8)],
        ['mask', png(8, 8)],
      ]),
      'mask',
      /alpha/,
    ],
    [
      'a mask of another size',
      form({ prompt: 'x' }, [
        ['image', png(8, 8)],
        ['mask', png(8, 9, true)],
      ]),
      'mask',
      /8×8/,
    ],
    ['strength 0', form({ prompt: 'x', strength: '0' }), 'strength', /above 0/],
    ['n 9', form({ prompt: 'x', n: '9' }), 'n', /between 1 and 8/],
  ] as [string, FormData, string, RegExp][])('refuses %s (param %s)', async (_what, f, param, message) => {
    const r = await refusal(parseEditForm(f, false))
    expect(r.param).toBe(param)
    expect(r.message).toMatch(message)
  })
})

describe('editSize', () => {
  const template = (native: number, multiple: number) =>
    ({ nativeSize: { width: native, height: native }, meta: { size_multiple: multiple } }) as WorkflowTemplate

  it('keeps the image’s shape with its longer side at the native size, floored to the multiple, at least 64', () => {
    expect(editSize({ width: 200, height: 100 }, template(512, 8))).toEqual({ width: 512, height: 256 })
    expect(editSize({ width: 3000, height: 4000 }, template(1024, 16))).toEqual({ width: 768, height: 1024 })
    expect(editSize({ width: 1000, height: 10 }, template(512, 8))).toEqual({ width: 512, height: 64 })
  })
})
