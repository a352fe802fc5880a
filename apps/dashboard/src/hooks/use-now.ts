import { useEffect, useState } from 'preact/hooks'

/** The current time, re-rendering every `ms` while `active` (for uptimes and elapsed times). */
export function useNow(ms = 1000, active = true): number {
  const [now, setNow] = useState(Date.now())
  useEffect(() => {
    if (!active) return
    const timer = setInterval(() => setNow(Date.now()), ms)
    return () => clearInterval(timer)
  }, [ms, active])
  return now
}
