import { createContext } from 'preact'
import { useContext } from 'preact/hooks'
import type { Session } from './api/session'

export const SessionContext = createContext<Session | null>(null)

/** The signed-in session (the shell renders pages only once it is known). */
export function useSession(): Session {
  const session = useContext(SessionContext)
  if (!session) throw new Error('useSession() outside the signed-in shell')
  return session
}
