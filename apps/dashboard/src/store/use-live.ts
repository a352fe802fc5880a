import { createContext } from 'preact'
import { useContext, useEffect, useState } from 'preact/hooks'
import type { LiveState } from './live-state'
import type { LiveStore } from './live-store'

export const LiveContext = createContext<LiveStore | null>(null)

/** The part of the live state a component reads; re-renders when it changes. */
export function useLive<T>(select: (state: LiveState) => T): T {
  const store = useContext(LiveContext)
  if (!store) throw new Error('useLive() needs the LiveContext provider')
  const [value, setValue] = useState(() => select(store.get()))
  useEffect(() => {
    setValue(() => select(store.get()))
    return store.subscribe((s) => setValue(() => select(s)))
  }, [store])
  return value
}
