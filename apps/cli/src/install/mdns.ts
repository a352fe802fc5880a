import type { Effects } from './effects'
import { lanAddress, mdnsCoversName } from './host-name'
import { LAYOUT } from './layout'

/** avahi's static service file: announces svc's HTTPS front door as `_https._tcp` on this host. */
export function renderAvahiService(httpsPort: number): string {
  return `<?xml version="1.0" standalone='no'?>
<!DOCTYPE service-group SYSTEM "avahi-service.dtd">
<!-- Written by svc install --auth=basic; removed by svc install --auth=off. -->
<service-group>
  <name replace-wildcards="yes">svc on %h</name>
  <service>
    <type>_https._tcp</type>
    <port>${httpsPort}</port>
    <txt-record>path=/</txt-record>
  </service>
</service-group>
`
}

/** avahi counts as present when its daemon's config is installed in the target root. */
export function avahiInstalled(fx: Effects): boolean {
  return fx.exists(LAYOUT.avahiConfig)
}

/**
 * How clients find `hostname` (a `.local` name). With avahi the service file is published (avahi
 * reloads its service directory by itself) and avahi already answers for this machine's own
 * `<host>.local`; any other name, or no avahi, needs a hosts-file line on each client, printed here.
 */
export async function publishName(fx: Effects, hostname: string, httpsPort: number): Promise<string[]> {
  const hints: string[] = []
  const avahi = avahiInstalled(fx)
  if (avahi) {
    await fx.write(LAYOUT.avahiService, renderAvahiService(httpsPort), {
      mode: 0o644,
      user: 'root',
      group: 'root',
    })
  }
  if (!avahi || !mdnsCoversName(hostname)) {
    const ip = lanAddress() ?? '<this machine’s LAN address>'
    hints.push(
      avahi
        ? `avahi answers only for this machine's own name, not ${hostname}. On each client add this line to /etc/hosts (Windows: C:\\Windows\\System32\\drivers\\etc\\hosts):`
        : `avahi-daemon is not installed, so nothing announces ${hostname}. On each client add this line to /etc/hosts (Windows: C:\\Windows\\System32\\drivers\\etc\\hosts):`,
      `    ${ip} ${hostname}`,
    )
  }
  return hints
}

/** `--auth=off`: the announcement goes. */
export async function unpublishName(fx: Effects): Promise<void> {
  await fx.remove(LAYOUT.avahiService)
}
