import { useToasts } from '@svc/ui'
import { useEffect, useState } from 'preact/hooks'
import { followHash, init, onError, refreshModels } from '../actions'
import { useChat } from '../store'
import { Composer } from './composer'
import { ConversationHeader } from './conversation-header'
import { MessageList } from './message-list'
import { Sidebar } from './sidebar'

/** How often the model list is read again while the page is visible (a slot loaded elsewhere shows up). */
const MODELS_EVERY_MS = 10_000

/** The page: conversations on the side, the open one in the middle, the message box below. */
export function App() {
  const toasts = useToasts()
  const fatal = useChat((s) => s.fatal)
  const me = useChat((s) => s.me)
  const modelsError = useChat((s) => s.modelsError)
  const [sidebarOpen, setSidebarOpen] = useState(false)

  useEffect(() => {
    onError((message) => toasts.show('error', message))
    void init()
    const onHash = () => {
      setSidebarOpen(false)
      void followHash()
    }
    window.addEventListener('hashchange', onHash)
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') void refreshModels()
    }, MODELS_EVERY_MS)
    return () => {
      window.removeEventListener('hashchange', onHash)
      clearInterval(timer)
    }
  }, [])

  if (fatal) {
    return (
      <main class="chat-fatal">
        <h1>svc chat cannot start</h1>
        <p role="alert">{fatal}</p>
      </main>
    )
  }
  return (
    <div class="chat-app" data-sidebar={sidebarOpen ? 'open' : 'closed'}>
      <Sidebar onClose={() => setSidebarOpen(false)} />
      <main class="chat-main">
        <div class="chat-topbar">
          <button
            type="button"
            class="svc-button chat-sidebar-toggle"
            aria-expanded={sidebarOpen}
            onClick={() => setSidebarOpen((open) => !open)}
          >
            Conversations
          </button>
          <ConversationHeader />
          {me ? (
            <span class="chat-me" title={me.auth === 'proxy' ? 'signed in through the proxy' : 'auth is off'}>
              {me.identity}
            </span>
          ) : null}
        </div>
        {modelsError ? (
          <p class="svc-warning" role="alert">
            {modelsError}
          </p>
        ) : null}
        <MessageList />
        <Composer />
      </main>
    </div>
  )
}
