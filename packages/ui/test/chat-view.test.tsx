// @vitest-environment jsdom
/**
 * The chat view against a real HTTP server that streams OpenAI-style SSE (Node's fetch, a real
 * socket): deltas appear as they arrive, reasoning folds away, Stop closes the connection, errors
 * show the server's message.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/preact'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { ChatView } from '../src/index'

let server: Server
let refusedOnce = 0
let base: string
const seen: { body: Record<string, unknown>; auth: string | undefined; closedEarly: boolean }[] = []

function chunk(delta: Record<string, unknown>, finish: string | null = null) {
  return `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
}

async function handle(req: IncomingMessage, res: ServerResponse) {
  // A fresh connection per request: a socket the Stop test aborted is never reused ("fetch failed").
  res.shouldKeepAlive = false
  let raw = ''
  for await (const c of req) raw += c
  const body = JSON.parse(raw) as { messages: { content: string }[] }
  const record = { body, auth: req.headers.authorization, closedEarly: false }
  seen.push(record)
  if (req.url === '/refuse' || (req.url === '/refuse-once' && refusedOnce++ === 0)) {
    res.writeHead(409, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ error: { code: 'model.not_loaded', message: 'slot "primary" holds no model' } }))
    return
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' })
  res.write(chunk({ role: 'assistant', reasoning_content: 'thinking…' }))
  if (req.url === '/slow') {
    let n = 0
    const timer = setInterval(() => res.write(chunk({ content: `word${n++} ` })), 20)
    res.on('close', () => {
      clearInterval(timer)
      record.closedEarly = !res.writableFinished
    })
    return
  }
  for (const piece of ['**Hello**', ' there.\n\n', '```js\nlet a = 1\n```'])
    res.write(chunk({ content: piece }))
  res.write(
    `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], timings: { predicted_per_second: 42.25, predicted_n: 3 } })}\n\n`,
  )
  res.write(`data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 4, completion_tokens: 3 } })}\n\n`)
  res.end('data: [DONE]\n\n')
}

beforeAll(async () => {
  server = createServer((req, res) => void handle(req, res))
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))
afterEach(cleanup)

function ask(text: string) {
  fireEvent.input(screen.getByLabelText('Message'), { target: { value: text } })
  fireEvent.click(screen.getByRole('button', { name: 'Send' }))
}

describe('ChatView', () => {
  it('streams an answer as markdown, folds the reasoning and sends the history', async () => {
    let finished: unknown
    render(
      <ChatView
        url={`${base}/fast`}
        model="primary"
        headers={() => ({ Authorization: 'Bearer t' })}
        extraBody={{ max_tokens: 20 }}
        onFinish={(m) => {
          finished = m
        }}
      />,
    )
    ask('hi')
    await screen.findByText('Hello', { selector: 'strong' })
    await waitFor(() => expect(screen.getByRole('button', { name: 'Send' })).toBeTruthy())
    expect(screen.getByText('Reasoning')).toBeTruthy()
    expect(document.querySelector('pre code')?.textContent).toBe('let a = 1')
    expect(seen.at(-1)).toMatchObject({
      auth: 'Bearer t',
      body: { model: 'primary', stream: true, max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] },
    })
    expect(finished).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: '**Hello** there.\n\n```js\nlet a = 1\n```', reasoning: 'thinking…' },
    ])
  })

  it('Stop aborts the request: the server sees the connection close mid-stream', async () => {
    render(<ChatView url={`${base}/slow`} model="primary" />)
    ask('go on')
    await screen.findByText(/word2/)
    fireEvent.click(screen.getByRole('button', { name: 'Stop' }))
    await screen.findByRole('button', { name: 'Send' })
    await waitFor(() => expect(seen.at(-1)?.closedEarly).toBe(true))
    expect(screen.queryByRole('alert')).toBeNull()
  })

  it("shows the server's error message, and no empty answer bubble", async () => {
    render(<ChatView url={`${base}/refuse`} model="primary" />)
    ask('x')
    expect((await screen.findByRole('alert')).textContent).toBe('slot "primary" holds no model')
    expect(screen.queryByText('Assistant')).toBeNull()
    expect(screen.getByText('x')).toBeTruthy() // the question stays
  })

  it("shows the page's own fix for an error, and resend asks again with the same question", async () => {
    refusedOnce = 0
    render(
      <ChatView
        url={`${base}/refuse-once`}
        model="primary"
        renderError={(failure, resend) => (
          <button type="button" onClick={resend}>
            Fix {failure.code} ({failure.status})
          </button>
        )}
      />,
    )
    ask('again?')
    fireEvent.click(
      await screen.findByRole('button', { name: 'Fix model.not_loaded (409)' }, { timeout: 5000 }),
    )
    await screen.findByText('Hello', { selector: 'strong' }, { timeout: 5000 })
    await waitFor(() => expect(screen.queryByRole('alert')).toBeNull())
    const asked = seen.slice(-2).map((r) => r.body.messages)
    expect(asked[0]).toEqual(asked[1])
    expect(screen.getAllByText('again?')).toHaveLength(1)
  })

  it('shows tokens/s and time to first token under an answer, sends the system prompt, and Clear empties', async () => {
    render(<ChatView url={`${base}/fast`} model="primary" system="Be brief." />)
    ask('hi')
    const figures = await screen.findByText(/tokens\/s/, {}, { timeout: 5000 })
    expect(figures.textContent).toMatch(/^42\.3 tokens\/s · \d+ ms to first token · 3 tokens$/)
    expect(seen.at(-1)?.body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hi' },
    ])
    fireEvent.click(screen.getByRole('button', { name: 'Clear' }))
    expect(screen.queryByText('Assistant')).toBeNull()
    expect(screen.queryByText('hi')).toBeNull()
    expect((screen.getByRole('button', { name: 'Clear' }) as HTMLButtonElement).disabled).toBe(true)
  })
})
