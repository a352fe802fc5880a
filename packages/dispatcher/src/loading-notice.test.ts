import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { LoadingNotice } from '@svc/core'
import { describe, expect, it } from 'vitest'
import { loadingWriter } from './loading-notice'

/** What a streamed client reads when the writer is told `notices` in turn and the response then ends. */
async function streamed(notices: LoadingNotice[]): Promise<string> {
  const server = createServer((_req, res) => {
    const writer = loadingWriter(res, { stream: true }, 'req-1')!
    for (const n of notices) writer.update(n)
    writer.stop()
    res.end('data: [DONE]\n\n')
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  try {
    const { port } = server.address() as AddressInfo
    return await (await fetch(`http://127.0.0.1:${port}/`)).text()
  } finally {
    server.close()
  }
}

describe('the loading notice of a streamed request', () => {
  it('says each step once: a step that changes nothing the client reads is not written again', async () => {
    const swapping: LoadingNotice = { model: 'b', state: 'swapping', replacing: 'a', percent: null }
    const text = await streamed([
      swapping,
      swapping, // the old model unloading
      swapping, // …and offline: still "swapping out a" to the client
      { model: 'b', state: 'starting', percent: null },
      { model: 'b', state: 'warming', percent: null },
      { model: 'b', state: 'warming', percent: null },
    ])
    expect(text.split('\n\n').filter(Boolean)).toEqual([
      ': loading b… (swapping out a)',
      ': loading b… (starting)',
      ': loading b… (warming)',
      'data: [DONE]',
    ])
  })

  it('writes each new pull percentage', async () => {
    const pulling = (percent: number | null): LoadingNotice => ({ model: 'b', state: 'pulling', percent })
    const text = await streamed([pulling(null), pulling(10), pulling(10), pulling(55)])
    expect(text.split('\n\n').filter(Boolean)).toEqual([
      ': loading b… (pulling)',
      ': loading b… 10% (pulling)',
      ': loading b… 55% (pulling)',
      'data: [DONE]',
    ])
  })
})
