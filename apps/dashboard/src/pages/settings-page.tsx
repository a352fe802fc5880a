import { useEffect } from 'preact/hooks'
import { can, whyNot } from '../api/session'
import { useSession } from '../session-context'
import { HardwareSection } from './settings/hardware-section'
import { TokensSection } from './settings/tokens-section'

/** Who you are, tokens (admin), and what this machine offers. */
export function SettingsPage() {
  const session = useSession()
  useEffect(() => {
    document.title = 'Settings · svc'
  }, [])
  return (
    <section aria-labelledby="settings-title" class="stack">
      <h1 id="settings-title">Settings</h1>
      <section class="card" aria-labelledby="auth-title">
        <h2 id="auth-title">Authentication</h2>
        <dl class="facts">
          <div>
            <dt>Mode</dt>
            <dd>
              {session.authEnabled
                ? 'on: the reverse proxy signs people in; programs use bearer tokens'
                : 'off (SVC_AUTH_ENABLED=0): everyone on the network may do everything'}
            </dd>
          </div>
          <div>
            <dt>You are</dt>
            <dd>
              {session.via === 'off'
                ? 'anyone (auth is off)'
                : session.via === 'proxy'
                  ? `${session.who} (signed in through the proxy)`
                  : `token "${session.who}"`}
            </dd>
          </div>
          <div>
            <dt>Scope</dt>
            <dd>{session.scope}</dd>
          </div>
        </dl>
      </section>
      {can(session, 'tokens') ? (
        <TokensSection />
      ) : (
        <section class="card" aria-labelledby="tokens-title">
          <h2 id="tokens-title">Tokens</h2>
          <p class="notice">{whyNot(session, 'tokens')}</p>
        </section>
      )}
      {can(session, 'read') ? <HardwareSection /> : null}
    </section>
  )
}
