import { describe, expect, it } from 'vitest'
import { firstImagePart, refuseImagesWithoutVision } from './vision'

const image = { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }
const withImage = {
  model: 'primary',
  messages: [
    { role: 'system', content: 'be brief' },
    { role: 'user', content: [{ type: 'text', text: 'what is this?' }, image] },
  ],
}
const textModel = { id: 'qwen3-0.6b-q8_0', provider: 'llm', role: 'chat' } as const
const visionModel = { ...textModel, id: 'smolvlm', mmproj: { path: '/m/mmproj.gguf' } }

describe('image parts at the edge', () => {
  it('finds the first image part by its path in the body', () => {
    expect(firstImagePart(withImage)).toBe('messages.1.content.1')
    expect(firstImagePart({ messages: [{ role: 'user', content: 'hi' }] })).toBeUndefined()
    expect(
      firstImagePart({ messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] }),
    ).toBeUndefined()
  })

  it('refuses an image for a chat model without a projector, naming messages', () => {
    let error: unknown
    try {
      refuseImagesWithoutVision(withImage, textModel, 'primary')
    } catch (e) {
      error = e
    }
    expect(error).toMatchObject({ code: 'request.invalid', status: 400, param: 'messages' })
    expect((error as Error).message).toMatch(/messages\.1\.content\.1 .*"qwen3-0\.6b-q8_0".*vision/)
  })

  it('lets images through to a model with a projector, and text through to any model', () => {
    expect(() => refuseImagesWithoutVision(withImage, visionModel, 'primary')).not.toThrow()
    expect(() =>
      refuseImagesWithoutVision({ messages: [{ role: 'user', content: 'hi' }] }, textModel, 'primary'),
    ).not.toThrow()
  })

  it('leaves providers that judge images themselves alone (the NPU)', () => {
    expect(() =>
      refuseImagesWithoutVision(withImage, { id: 'flm-gemma3-4b', provider: 'npu', role: 'chat' }, 'npu'),
    ).not.toThrow()
  })
})
