import { createTokenStore } from '@svc/auth'
import { CliError } from '../context'
import type { Effects } from './effects'
import { LAYOUT, SERVICE_USER } from './layout'

/** Label of the token the installer mints for the chat app; earlier ones with it are revoked. */
export const CHAT_TOKEN_LABEL = 'svc-chat (installer)'

/**
 * Revokes the chat tokens earlier runs minted and, when `mint`, creates a fresh `v1-only` one in the
 * target's `tokens.toml` (through the token store: its lock, atomic write and argon2id hash, so a
 * running API sees the change at once). The file is then given back to the svc user, mode 0600.
 * Returns the new token (for chat.env only; it is never printed). Dry run: nothing changes.
 */
export async function rotateChatToken(fx: Effects, mint: boolean): Promise<string | undefined> {
  // The svc user may put anything at that name; the token store (running as root here) must not
  // read or chown through a link it planted.
  if (fx.exists(LAYOUT.tokens) || fx.isLink(LAYOUT.tokens)) {
    if (fx.read(LAYOUT.tokens) === undefined)
      throw new CliError(
        `${LAYOUT.tokens} is not a plain file (a link?): svc install does not change tokens through it; check it, remove it, and run again`,
      )
  }
  const store = createTokenStore({ configDir: fx.local(LAYOUT.configDir), watch: false, flushIntervalMs: 0 })
  try {
    const previous = fx.exists(LAYOUT.tokens)
      ? (await store.list()).filter((t) => t.label === CHAT_TOKEN_LABEL)
      : []
    if (fx.dryRun) {
      if (previous.length) fx.note(`would revoke the chat app's previous token (${previous.length})`)
      if (mint) fx.note(`would mint a v1-only token for the chat app in ${LAYOUT.tokens}`)
      return mint ? 'svc_dry-run' : undefined
    }
    let revoked = 0
    for (const t of previous) if (await store.revoke(t.id)) revoked++
    const created = mint ? await store.create({ label: CHAT_TOKEN_LABEL, scope: 'v1-only' }) : undefined
    if (created || revoked)
      await fx.own(LAYOUT.tokens, { mode: 0o600, user: SERVICE_USER, group: SERVICE_USER })
    if (revoked) fx.note(`revoked the chat app's previous token (${revoked})`)
    if (created) fx.note(`minted a v1-only token for the chat app (id ${created.id}, in ${LAYOUT.tokens})`)
    return created?.token
  } finally {
    await store.close()
  }
}
