import { classify } from '@svc/auth'
import { describe, expect, it } from 'vitest'
import { testApp } from './helpers'

describe('a throwaway endpoint', () => {
  it('answers, validates its body and is classed by the policy without a change', async () => {
    const { app } = await testApp()
    const got = await app.request('/api/scratch')
    expect(await got.json()).toEqual({ slots: 6 })
    const bad = await app.request('/api/scratch', { method: 'POST', body: '{"nom":1}' })
    expect(bad.status).toBe(400)
    expect((await bad.json()).error.code).toBe('request.invalid')
    const ok = await app.request('/api/scratch', {
      method: 'POST',
      body: '{"name":"x"}',
      headers: { 'content-type': 'application/json' },
    })
    expect(await ok.json()).toEqual({ hello: 'x' })
    expect(classify('GET', '/api/scratch')).toBe('api-read')
    expect(classify('POST', '/api/scratch')).toBe('api-mutation')
    const del = await app.request('/api/scratch', { method: 'DELETE' })
    expect(del.status).toBe(405)
  })
})
