/**
 * A person's quota, end to end: the API with auth on and a default quota for people
 * (`SVC_IDENTITY_QUOTA`), llama-server, the chat app with its own token behind the proxy, and
 * Chromium. The chat app names the person to the API, the API counts and limits them, and the page
 * shows what is left.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumAvailable } from './browser'
import { type ChatInBrowser, startChatInBrowser } from './chat-in-browser'
import { createChatToken } from './chat-token'
import { type LiveStack, partsAvailable, startLiveStack } from './live-stack'

const available = chromiumAvailable() && partsAvailable()
const SECRET = 'proxy-secret-for-allowance-tests'
const PERSON = 'alice@example.com'

describe.skipIf(!available)('a person’s allowance in the chat app', () => {
  let stack: LiveStack
  let app: ChatInBrowser

  beforeAll(async () => {
    stack = await startLiveStack({
      env: { SVC_AUTH_ENABLED: '1', SVC_PROXY_SECRET: SECRET, SVC_IDENTITY_QUOTA: 'rpm=2,tpd=100000' },
    })
    const token = await createChatToken(stack.api.configDir)
    app = await startChatInBrowser({
      env: {
        SVC_CHAT_API_URL: stack.api.url,
        SVC_CHAT_API_TOKEN: token,
        SVC_CHAT_TRUSTED_HEADER: 'X-Forwarded-Email',
        SVC_PROXY_SECRET: SECRET,
      },
      // What the proxy adds to the signed-in person's requests.
      context: { extraHTTPHeaders: { 'X-Forwarded-Email': PERSON, 'X-Svc-Proxy-Secret': SECRET } },
    })
  }, 180_000)

  afterAll(async () => {
    await app?.[Symbol.asyncDispose]()
    await stack?.[Symbol.asyncDispose]()
  })

  it('shows what is left after an answer, matching the ledger, and the quota’s refusal past it', async () => {
    const { page } = await app.compose('primary', 'Hello')
    await page.getByRole('button', { name: 'Send' }).click()
    const note = page.getByRole('status', { name: 'Your allowance' })
    await note.waitFor({ timeout: 30_000 })
    const usage = await fetch(`${stack.api.url}/api/usage?group_by=identity`, {
      headers: { 'x-forwarded-email': 'test-admin', 'x-svc-proxy-secret': SECRET },
    })
    const rows = ((await usage.json()) as { rows: { identity: string; total_tokens: number }[] }).rows
    const used = rows.find((r) => r.identity === PERSON)?.total_tokens ?? 0
    expect(used).toBeGreaterThan(0)
    expect(await note.textContent()).toBe(
      `${(100000 - used).toLocaleString('en')} of 100,000 tokens left today (resets in ${await resetOf(note)}) · 1 of 2 requests left this minute`,
    )

    // The second answer uses the last request of the minute; the third is refused by the quota.
    const composer = page.getByRole('textbox', { name: 'Message', exact: true })
    await composer.fill('Again')
    await page.getByRole('button', { name: 'Send' }).click()
    await note.getByText('0 of 2 requests left this minute').waitFor({ timeout: 30_000 })
    await composer.fill('Once more')
    await page.getByRole('button', { name: 'Send' }).click()
    await page
      .getByText(/this person's quota of 2 requests per minute is used up/)
      .first()
      .waitFor({ timeout: 30_000 })
  }, 90_000)
})

/** The reset text the note shows (it depends on the time of day). */
async function resetOf(note: { textContent(): Promise<string | null> }): Promise<string> {
  return /resets in ([\dhms]+)\)/.exec((await note.textContent()) ?? '')?.[1] ?? '?'
}
