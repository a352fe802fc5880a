import { ToastProvider } from '@svc/ui'
import type { ComponentType } from 'preact'
import { useEffect, useMemo, useState } from 'preact/hooks'
import { loadSession } from './api/load-session'
import { type Session, storedToken, storeToken } from './api/session'
import { ConnectionIndicator } from './components/connection-indicator'
import { TokenPrompt } from './components/token-prompt'
import { ActivityPage } from './pages/activity/activity-page'
import { LogsPage } from './pages/logs-page'
import { ModelsPage } from './pages/models-page'
import { SettingsPage } from './pages/settings-page'
import { SlotsPage } from './pages/slots/slots-page'
import { UsagePage } from './pages/usage-page'
import { Link, usePath } from './router'
import { SessionContext } from './session-context'
import { createLiveStore } from './store/live-store'
import { LiveContext } from './store/use-live'

const NAV = [
  { href: '/', label: 'Slots' },
  { href: '/models', label: 'Models' },
  { href: '/playground', label: 'Playground' },
  { href: '/activity', label: 'Activity' },
  { href: '/logs', label: 'Logs' },
  { href: '/usage', label: 'Usage' },
  { href: '/settings', label: 'Settings' },
] as const

/** Loads session, then the shell; asks for a token when auth is on and nobody is signed in. */
export function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined)
  const [problem, setProblem] = useState<string | null>(null)
  const [refused, setRefused] = useState(false)
  useEffect(() => {
    loadSession().then(
      (s) => {
        // A stored token the server no longer accepts (revoked) is dropped, and the prompt says why.
        if (s === null && storedToken()) {
          storeToken(null)
          setRefused(true)
        }
        setSession(s)
      },
      (e: Error) => setProblem(`The API did not answer: ${e.message}`),
    )
  }, [])
  if (problem)
    return (
      <main class="signin">
        <h1>svc</h1>
        <p role="alert">{problem}</p>
      </main>
    )
  if (session === undefined) return <p class="loading">Loading…</p>
  if (session === null)
    return (
      <TokenPrompt
        error={refused ? 'That token was not accepted (revoked or mistyped).' : null}
        onSubmit={async (token) => {
          storeToken(token)
          const next = await loadSession().catch(() => null)
          if (next?.via !== 'token') {
            storeToken(null)
            return 'That token was not accepted (revoked or mistyped).'
          }
          setSession(next)
          return null
        }}
      />
    )
  return (
    <SessionContext.Provider value={session}>
      <ToastProvider>
        <Shell
          session={session}
          onSignOut={() => {
            storeToken(null)
            setSession(null)
          }}
        />
      </ToastProvider>
    </SessionContext.Provider>
  )
}

function Shell({ session, onSignOut }: { session: Session; onSignOut: () => void }) {
  const store = useMemo(() => createLiveStore(), [])
  useEffect(() => {
    store.start()
    return () => store.stop()
  }, [store])
  const path = usePath()
  const section = `/${path.split('/')[1] ?? ''}`
  return (
    <LiveContext.Provider value={store}>
      <header class="topbar">
        <a class="brand" href="/">
          svc
        </a>
        <nav aria-label="Main">
          <ul>
            {NAV.map((item) => (
              <li key={item.href}>
                <Link href={item.href} current={section === item.href}>
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div class="topbar-end">
          <ConnectionIndicator />
          <span class="who" title={session.who ?? undefined}>
            {session.via === 'off' ? 'Auth off' : `${session.scope}${session.who ? ` · ${session.who}` : ''}`}
          </span>
          {session.via === 'token' ? (
            <button type="button" class="svc-button" onClick={onSignOut}>
              Sign out
            </button>
          ) : null}
        </div>
      </header>
      <main id="main" class="page">
        <Page path={path} />
      </main>
    </LiveContext.Provider>
  )
}

function Page({ path }: { path: string }) {
  const [, first, second] = path.split('/')
  switch (first) {
    case '':
      return <SlotsPage />
    case 'models':
      return <ModelsPage />
    case 'playground':
      return <LazyPlayground tab={second ?? 'chat'} />
    case 'activity':
      return <ActivityPage />
    case 'logs':
      return <LogsPage slot={second ?? null} />
    case 'usage':
      return <UsagePage />
    case 'settings':
      return <SettingsPage />
    default:
      return (
        <section>
          <h1>Not found</h1>
          <p>
            Nothing at {path}. <Link href="/">Back to the slots</Link>
          </p>
        </section>
      )
  }
}

type PlaygroundModule = { PlaygroundPage: ComponentType<{ tab: string }> }
let playground: Promise<PlaygroundModule> | undefined

/** The playground (markdown, highlighting) loads on first visit, keeping the first page small. */
function LazyPlayground({ tab }: { tab: string }) {
  const [mod, setMod] = useState<PlaygroundModule | null>(null)
  useEffect(() => {
    playground ??= import('./pages/playground/playground-page')
    void playground.then(setMod)
  }, [])
  return mod ? <mod.PlaygroundPage tab={tab} /> : <p class="loading">Loading the playground…</p>
}
