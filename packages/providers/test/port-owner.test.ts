import { spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { describe, expect, it, onTestFinished } from 'vitest'
import { listensOn } from '../src/runtimes/port-owner'

function listen(host: string): Promise<number> {
  const server = createServer()
  onTestFinished(() => new Promise<void>((r) => server.close(() => r())))
  return new Promise((resolve) =>
    server.listen(0, host, () => resolve((server.address() as { port: number }).port)),
  )
}

describe.skipIf(process.platform !== 'linux')('listensOn', () => {
  it('is true for the process that listens on the port (IPv4 and IPv6)', async () => {
    expect(await listensOn(process.pid, await listen('127.0.0.1'))).toBe(true)
    expect(await listensOn(process.pid, await listen('::1'))).toBe(true)
  })

  it('is false for another process, and for a port nobody listens on', async () => {
    const port = await listen('127.0.0.1')
    const other = spawn('sleep', ['30'], { stdio: 'ignore' })
    onTestFinished(() => void other.kill())
    expect(await listensOn(other.pid!, port)).toBe(false)
    expect(await listensOn(process.pid, 1)).toBe(false)
  })
})
