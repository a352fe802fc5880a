import type { Effects } from './effects'
import { CHAT_USER, LAYOUT } from './layout'
import { readUserDb } from './user-db'

/**
 * Installs before the chat app had its own user kept its data in `/var/lib/svc/chat` (the svc
 * user's). Moves it, once, to `/var/lib/svc-chat/chat` and gives it to svc-chat (`chown -R -P`:
 * links are changed themselves, never followed). Nothing to do when the new place exists.
 */
export async function moveChatState(fx: Effects): Promise<void> {
  const old = `${LAYOUT.stateDir}/chat`
  const target = `${LAYOUT.chatStateDir}/chat`
  if (!fx.exists(old) || fx.isLink(old) || fx.exists(target)) return
  await fx.run(['mv', '-T', fx.local(old), fx.local(target)], 'move the chat app’s data to its own user')
  const db = readUserDb(fx.root)
  const [uid, gid] = [db.uid(CHAT_USER), db.gid(CHAT_USER)]
  if (process.getuid?.() === 0 && uid !== undefined && gid !== undefined)
    await fx.run(['chown', '-R', '-P', `${uid}:${gid}`, fx.local(target)], `give it to ${CHAT_USER}`)
}
