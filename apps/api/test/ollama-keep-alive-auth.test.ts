/**
 * Auth on: Ollama's unload request and `keep_alive` change a slot for everyone, so only a caller that
 * may manage slots (admin) makes them take effect; an inference token's unload is 403 and its
 * `keep_alive` is read (garbage is 400) but not applied. The slot is a remote one on the
 * wrong-answering stand-in, so no engine is needed.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { startWrongEngine, type WrongEngine } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { send, useAuthServer } from './auth-harness'

let engine: WrongEngine | undefined

describe("Ollama's unload and keep_alive with auth on", () => {
  const server = useAuthServer({}, async ({ configDir }) => {
    engine = await startWrongEngine()
    await mkdir(join(configDir, 'slots'), { recursive: true })
    await writeFile(
      join(configDir, 'slots', 'wrong.toml'),
      `enabled = true\nprovider = "llm"\nbackend = "cpu"\nruntime = "remote"\nurl = "${engine.url}"\n`,
    )
  })
  let admin: string
  let v1Only: string
  const as = (token: string) => ({ authorization: `Bearer ${token}` })
  const post = (token: string, path: string, body: unknown) =>
    send(server.url, { method: 'POST', path, headers: as(token), body: JSON.stringify(body) })
  const state = async () =>
    (
      JSON.parse((await send(server.url, { path: '/api/slots/wrong', headers: as(admin) })).text) as {
        state: string
      }
    ).state
  const expiresAt = async () => {
    const ps = JSON.parse((await send(server.url, { path: '/api/ps' })).text) as {
      models: { name: string; expires_at: string }[]
    }
    return Date.parse(ps.models.find((m) => m.name.startsWith('wrong'))?.expires_at ?? '')
  }

  beforeAll(async () => {
    admin = (await server.mint('admin')).token
    v1Only = (await server.mint('v1-only')).token
    const deadline = Date.now() + 30_000
    while ((await state()) !== 'ready' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
  })
  afterAll(() => engine?.close())

  it("does not apply an inference token's keep_alive, but refuses its garbage", async () => {
    const r = await post(v1Only, '/api/generate', {
      model: 'wrong',
      prompt: 'Hi',
      keep_alive: 600,
      stream: false,
    })
    expect(r.status).toBe(200)
    expect(await expiresAt()).toBeGreaterThan(Date.parse('2200-01-01'))
    const bad = await post(v1Only, '/api/generate', { model: 'wrong', prompt: 'Hi', keep_alive: 'soon' })
    expect(bad.status).toBe(400)
    expect(JSON.parse(bad.text)).toMatchObject({ error: expect.stringContaining('keep_alive') })
  })

  it('lets an inference token load, and refuses its unload with 403 (the slot stays)', async () => {
    const load = await post(v1Only, '/api/chat', { model: 'wrong:latest', messages: [] })
    expect(JSON.parse(load.text)).toMatchObject({ done_reason: 'load' })
    const unload = await post(v1Only, '/api/chat', { model: 'wrong', messages: [], keep_alive: 0 })
    expect(unload.status).toBe(403)
    expect(JSON.parse(unload.text)).toMatchObject({
      code: 'auth.forbidden',
      error: expect.stringMatching(/admin/),
    })
    expect(await state()).toMatch(/^(ready|idle)$/)
  })

  it("applies an admin's keep_alive, and unloads for an admin", async () => {
    const r = await post(admin, '/api/generate', {
      model: 'wrong',
      prompt: 'Hi',
      keep_alive: '10m',
      stream: false,
    })
    expect(r.status).toBe(200)
    const at = await expiresAt()
    expect(at).toBeGreaterThan(Date.now() + 590_000)
    expect(at).toBeLessThan(Date.now() + 610_000)
    const unload = await post(admin, '/api/generate', { model: 'wrong', keep_alive: 0 })
    expect(JSON.parse(unload.text)).toMatchObject({ done_reason: 'unload' })
    expect(await state()).toBe('offline')
  })
})
