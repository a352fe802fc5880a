import { can, whyNot } from '../api/session'
import { Fact } from '../components/fact'
import { Notice } from '../components/notice'
import { Page } from '../components/page'
import { useSession } from '../session-context'
import { HardwareSection } from './settings/hardware-section'
import { TokensSection } from './settings/tokens-section'

/** Who you are, tokens (admin), and what this machine offers. */
export function SettingsPage() {
  const session = useSession()
  return (
    <Page title="Settings" class="stack">
      <section class="card" aria-labelledby="auth-title">
        <h2 id="auth-title">Authentication</h2>
        <dl class="facts">
          <Fact term="Mode">
            {session.authEnabled
              ? 'on: the reverse proxy signs people in; programs use bearer tokens'
              : 'off (SVC_AUTH_ENABLED=0): everyone on the network may do everything'}
          </Fact>
          <Fact term="You are">
            {session.via === 'off'
              ? 'anyone (auth is off)'
              : session.via === 'proxy'
                ? `${session.who} (signed in through the proxy)`
                : `token "${session.who}"`}
          </Fact>
          <Fact term="Scope">{session.scope}</Fact>
        </dl>
      </section>
      {can(session, 'tokens') ? (
        <TokensSection />
      ) : (
        <section class="card" aria-labelledby="tokens-title">
          <h2 id="tokens-title">Tokens</h2>
          <Notice text={whyNot(session, 'tokens')} />
        </section>
      )}
      {can(session, 'read') ? <HardwareSection /> : null}
    </Page>
  )
}
