/**
 * `svc doctor`, the health check a user runs first: the real `svc` on this machine, with the real
 * engines, ports held by a real program, and a real API. No Docker here (DOCKER_HOST at nothing) is a
 * note, never a failure; a port another program holds is a failure with its fix.
 */
import { createServer, type Server, type Socket } from 'node:net'
import { requireLlamaServer, runSvc, startApi, tempDirs, testEnv } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const dirs = tempDirs('svc-doctor-checkup-')
const llamaServer = requireLlamaServer()

/** A plain TCP listener that is not svc, on a free port; `close()` drops its connections too. */
async function listener(): Promise<{ server: Server; port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>()
  const server = createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.destroy()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy()
      server.close(() => resolve())
    })
  return { server, port: (server.address() as { port: number }).port, close }
}

async function freePort(): Promise<number> {
  const { port, close } = await listener()
  await close()
  return port
}

describe.skipIf(!llamaServer)('svc doctor', () => {
  let env: Record<string, string | undefined>
  beforeAll(async () => {
    const home = await dirs.make()
    env = {
      ...testEnv.inherited(),
      DOCKER_HOST: 'unix:///nonexistent/docker.sock',
      SVC_API_URL: 'http://127.0.0.1:1',
      SVC_CONFIG_DIR: `${home}/config`,
      SVC_STATE_DIR: `${home}/state`,
      SVC_PORT: String(await freePort()),
      SVC_CHAT_PORT: String(await freePort()),
    }
  })
  afterAll(() => dirs.removeAll())

  it('passes on a machine with the engines and no Docker: ✓ engines, ! Docker, exit 0', async () => {
    const r = await runSvc(['doctor'], env)
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0)
    const line = (start: string) => r.stdout.split('\n').find((l) => l.startsWith(start)) ?? ''
    expect(line('✓ llama-server: ')).toContain('/llama-server')
    expect(line(`✓ port ${env.SVC_PORT} (the API, SVC_PORT)`)).toMatch(/: free$/)
    expect(line('✓ config dir ')).toContain(String(env.SVC_CONFIG_DIR))
    expect(line('✓ state dir ')).toContain(String(env.SVC_STATE_DIR))
    expect(line('! Docker not found')).toContain('only needed for container slots')
    expect(line('✓ slot primary (llm')).toContain('can run here')
    // The image slot defaults to ROCm, which this box lacks: a note with its fix, not a failure (disabled).
    expect(r.stdout).toMatch(/^! slot img \(image, rocm, disabled\): cannot run here: .*rocm/m)
    expect(r.stdout).not.toContain('✗')
    expect(r.stdout).toMatch(/Nothing blocks svc here/)
    expect(r.stderr).toBe('')
  }, 120_000)

  it("fails on a port another program holds, naming the fix; a port svc's API holds is fine", async () => {
    const taken = await listener()
    await using api = await startApi({ timeoutMs: 90_000 })
    try {
      const apiPort = new URL(api.url).port
      const r = await runSvc(['doctor'], {
        ...env,
        SVC_API_URL: api.url,
        SVC_PORT: apiPort,
        SVC_CHAT_PORT: String(taken.port),
      })
      expect(r.code, r.stdout).toBe(1)
      const lines = r.stdout.split('\n')
      const at = lines.findIndex((l) => l.startsWith(`✗ port ${taken.port} (the chat app, SVC_CHAT_PORT)`))
      expect(lines[at]).toMatch(/in use by another program$/)
      expect(lines[at + 1]).toMatch(/^ {4}fix: stop that program .*SVC_CHAT_PORT=<port> svc start$/)
      expect(r.stdout).toMatch(
        new RegExp(`^✓ port ${apiPort} \\(the API, SVC_PORT\\): in use by svc \\(the API `, 'm'),
      )
      // With the API up, its verdicts and its auth mode are what the doctor shows.
      expect(r.stdout).toMatch(
        new RegExp(`^✓ API: svc \\S+ answers at ${api.url.replace(/\./g, '\\.')}`, 'm'),
      )
      expect(r.stdout).toMatch(/^✓ auth: off: /m)
      expect(r.stdout).toMatch(/^✓ slot primary \(llm.*can run here$/m)
      expect(r.stdout).toMatch(/1 problem \(✗\) blocks svc/)
    } finally {
      await taken.close()
    }
  }, 240_000)
})
