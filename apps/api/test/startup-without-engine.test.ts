/**
 * Start-up with the container engine down: a slot that runs in a container cannot be recovered, and
 * that must not keep a remote slot from its default load. Before, one slot's failed recovery ended
 * the whole start-up step ("startup loads failed") and the remote slot stayed offline.
 */
import { type ApiProcess, type FakeUpstream, startApiWithConfig, startFakeUpstream } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { waitForSlot } from './live'

describe('start-up without a container engine', () => {
  let upstream: FakeUpstream
  let api: ApiProcess

  beforeAll(async () => {
    upstream = await startFakeUpstream()
    api = await startApiWithConfig({
      slots: {
        boxed: 'provider = "llm"\nruntime = "container"\n',
        far: `enabled = true\nprovider = "llm"\nruntime = "remote"\nurl = "${upstream.url}"\nrestart = "no"\n`,
      },
      // No engine behind this socket: every container call fails at once.
      env: { DOCKER_HOST: 'unix:///nonexistent/svc-test/docker.sock' },
    })
  })

  afterAll(async () => {
    await api?.[Symbol.asyncDispose]()
    await upstream?.[Symbol.asyncDispose]()
  })

  it('loads the remote slot and says which slot could not be recovered', async () => {
    await waitForSlot(api, 'far', (s) => s.state === 'ready', 15_000)
    expect(api.output()).toMatch(/"msg":"slot not recovered","slot":"boxed"/)
    expect(api.output()).not.toMatch(/startup loads failed/)
  })
})
