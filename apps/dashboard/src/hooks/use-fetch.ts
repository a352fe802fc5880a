import { useCallback, useEffect, useState } from 'preact/hooks'

export interface Fetched<T> {
  data: T | undefined
  error: string | null
  reload: () => void
}

/** Loads data once per change of `deps` (and on `reload`); keeps the last data while reloading. */
export function useFetch<T>(load: () => Promise<T>, deps: unknown[]): Fetched<T> {
  const [data, setData] = useState<T | undefined>(undefined)
  const [error, setError] = useState<string | null>(null)
  const [tick, setTick] = useState(0)
  useEffect(() => {
    let live = true
    load().then(
      (d) => {
        if (!live) return
        setData(d)
        setError(null)
      },
      (e: Error) => live && setError(e.message),
    )
    return () => {
      live = false
    }
  }, [...deps, tick])
  return { data, error, reload: useCallback(() => setTick((n) => n + 1), []) }
}
