/**
 * What `svc start` prints once the servers listen: the addresses a person opens (never the
 * `0.0.0.0` a server binds), the LAN addresses when the API listens on every interface, and why the
 * chat app answers on this machine only.
 */
import { type OpenAddressesOptions, openAddresses } from './open-addresses'
import type { StartedServer } from './service-files'

const LABEL: Record<StartedServer['app'], string> = { api: 'Dashboard and API', chat: 'Chat app' }
const WIDTH = Math.max(...Object.values(LABEL).map((l) => l.length))

/** Why the chat app is on 127.0.0.1 only (auth off), for the line under its address. */
export const CHAT_LOCAL_ONLY =
  'The chat app answers on this machine only: it takes whoever reaches it as the one local user,\n' +
  '  until a proxy puts each person’s identity in front (docs/chat.md).'

/**
 * The banner's lines for `servers` (each ending in a newline): one per server with the address to
 * open, its pid and, when given, how long it took to listen; the LAN addresses under a server that
 * listens on every interface; the chat app's local-only note when it listens on loopback with auth off.
 */
export function bannerLines(
  servers: readonly (StartedServer & { seconds?: number })[],
  options: Pick<OpenAddressesOptions, 'interfaces'> = {},
): string {
  let out = ''
  let chatLocalOnly = false
  for (const s of servers) {
    const open = openAddresses(s.bound ?? s.url, {
      ...options,
      loopbackName: s.app === 'chat' ? '127.0.0.1' : 'localhost',
    })
    const took = s.seconds === undefined ? '' : `, listening after ${s.seconds.toFixed(2)} s`
    out += `  ${LABEL[s.app].padEnd(WIDTH)}  ${open.here}  (pid ${s.pid}${took})\n`
    for (const lan of open.lan) out += `  ${''.padEnd(WIDTH)}  ${lan}  (from other machines)\n`
    if (s.app === 'chat' && open.localOnly && s.oneLocalUser) chatLocalOnly = true
  }
  return chatLocalOnly ? `${out}  ${CHAT_LOCAL_ONLY}\n` : out
}
