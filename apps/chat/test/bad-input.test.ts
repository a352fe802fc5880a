/** Bad input gets a clear 4xx in svc's error body, never a 500 or a hang. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ServedApp, send, serveChatApp } from './serve-app'

describe('bad input to the chat server', () => {
  let app: ServedApp
  let id: string
  const json = { 'content-type': 'application/json' }

  beforeAll(async () => {
    app = await serveChatApp()
    const r = await send(app.port, { method: 'POST', path: '/api/conversations', headers: json, body: '{}' })
    id = r.json<{ conversation: { id: string } }>().conversation.id
  })
  afterAll(async () => {
    await app?.[Symbol.asyncDispose]()
  })

  it.each([
    ['malformed JSON', `/api/conversations/ID/messages`, '{"content":', 400, 'request.invalid', null],
    ['no model', `/api/conversations/ID/messages`, '{"content":"hi"}', 400, 'request.invalid', 'model'],
    [
      'an empty message',
      `/api/conversations/ID/messages`,
      '{"content":"  ","model":"primary"}',
      400,
      'request.invalid',
      'content',
    ],
    [
      'a content of the wrong type',
      `/api/conversations/ID/messages`,
      '{"content":5,"model":"p"}',
      400,
      'request.invalid',
      'content',
    ],
    [
      'an attachment that is not a file id',
      `/api/conversations/ID/messages`,
      '{"content":"x","model":"p","attachments":["../etc"]}',
      400,
      'request.invalid',
      'attachments.0',
    ],
    [
      'an unknown conversation',
      `/api/conversations/nope/messages`,
      '{"content":"x","model":"p"}',
      404,
      'conversation.not_found',
      null,
    ],
    [
      'editing a message that does not exist',
      `/api/conversations/ID/messages/AAAAAAAAAAAAAAAA/edit`,
      '{"content":"x","model":"p"}',
      400,
      'request.invalid',
      'messageId',
    ],
    [
      'regenerating with nothing to answer',
      `/api/conversations/ID/regenerate`,
      '{"model":"p"}',
      400,
      'request.invalid',
      null,
    ],
    [
      'an image of a silly size',
      `/api/conversations/ID/images`,
      '{"prompt":"cat","size":"huge"}',
      400,
      'request.invalid',
      'size',
    ],
    [
      'too many images',
      `/api/conversations/ID/images`,
      '{"prompt":"cat","n":50}',
      400,
      'request.invalid',
      'n',
    ],
    ['speech with nothing to say', `/api/audio/speech`, '{"input":""}', 400, 'request.invalid', 'input'],
  ])('refuses %s', async (_name, path, body, status, code, param) => {
    const r = await send(app.port, { method: 'POST', path: path.replace('ID', id), headers: json, body })
    expect(r.status).toBe(status)
    expect(r.json().error).toMatchObject({ code, param })
  })

  it('refuses an empty title, a body over 1 MB and an upload that is not an image', async () => {
    const empty = await send(app.port, {
      method: 'PATCH',
      path: `/api/conversations/${id}`,
      headers: json,
      body: '{"title":" "}',
    })
    expect(empty.json().error).toMatchObject({ code: 'request.invalid', param: 'title' })
    // fetch reads the early 413 even while it is still sending the body.
    const big = await fetch(`${app.url}/api/conversations/${id}/messages`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ content: 'x'.repeat(1_100_000), model: 'p' }),
    })
    expect([big.status, ((await big.json()) as { error: { code: string } }).error.code]).toEqual([
      413,
      'request.too_large',
    ])
    const huge = await fetch(`${app.url}/api/files`, {
      method: 'POST',
      headers: { 'content-type': 'image/png' },
      body: new Uint8Array(11 * 1024 * 1024),
    })
    expect(huge.status).toBe(413)
    const text = await send(app.port, {
      method: 'POST',
      path: '/api/files',
      headers: { 'content-type': 'image/png' },
      body: 'not a png',
    })
    expect(text.json().error).toMatchObject({ code: 'request.invalid', param: 'file' })
    const audio = await send(app.port, {
      method: 'POST',
      path: '/api/audio/transcriptions',
      headers: json,
      body: '{}',
    })
    expect(audio.json().error).toMatchObject({ code: 'request.invalid', param: 'file' })
  })

  it('answers unknown routes, ids and export formats with 4xx', async () => {
    expect((await send(app.port, { path: '/api/nothing' })).json().error.code).toBe('route.not_found')
    expect((await send(app.port, { path: '/api/files/short' })).status).toBe(404)
    const format = await send(app.port, { path: `/api/conversations/${id}/export?format=pdf` })
    expect(format.json().error).toMatchObject({ code: 'request.invalid', param: 'format' })
  })

  it('answers a method a route does not take with 405, Allow and the error body (like the API)', async () => {
    const deleteList = await send(app.port, { method: 'DELETE', path: '/api/conversations' })
    expect(deleteList.status).toBe(405)
    expect(deleteList.headers.allow).toBe('GET, HEAD, POST')
    expect(deleteList.json().error).toMatchObject({
      code: 'method.not_allowed',
      type: 'invalid_request_error',
    })
    const putMe = await send(app.port, { method: 'PUT', path: '/api/me', headers: json, body: '{}' })
    expect([putMe.status, putMe.headers.allow]).toEqual([405, 'GET, HEAD'])
    const postPage = await send(app.port, { method: 'POST', path: '/', headers: json, body: '{}' })
    expect([postPage.status, postPage.json().error.code]).toEqual([405, 'method.not_allowed'])
    // an unknown path stays a 404
    expect((await send(app.port, { method: 'DELETE', path: '/api/nothing' })).status).toBe(404)
  })

  it('exports a conversation as Markdown and as JSON, as downloads', async () => {
    const md = await send(app.port, { path: `/api/conversations/${id}/export` })
    expect(md.headers['content-type']).toBe('text/markdown; charset=utf-8')
    expect(md.headers['content-disposition']).toBe('attachment; filename="New-chat.md"')
    expect(md.text).toMatch(/^# New chat\n/)
    const js = await send(app.port, { path: `/api/conversations/${id}/export?format=json` })
    expect(js.json<{ format: string; conversation: { id: string } }>()).toMatchObject({
      format: 'svc-chat/1',
      conversation: { id },
    })
  })
})
