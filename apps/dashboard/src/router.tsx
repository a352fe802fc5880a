/**
 * A small History-API router: paths like `/models` and `/logs/primary` (the API answers them with
 * index.html), links that navigate without a reload, and the back button.
 */
import type { ComponentChildren } from 'preact'
import { useEffect, useState } from 'preact/hooks'

const listeners = new Set<() => void>()

export function navigate(to: string): void {
  if (to === location.pathname + location.search) return
  history.pushState(null, '', to)
  for (const l of listeners) l()
}

/** The current path, updated on navigation and on back/forward. */
export function usePath(): string {
  const [path, setPath] = useState(location.pathname)
  useEffect(() => {
    const update = () => setPath(location.pathname)
    listeners.add(update)
    addEventListener('popstate', update)
    return () => {
      listeners.delete(update)
      removeEventListener('popstate', update)
    }
  }, [])
  return path
}

export function Link(props: {
  href: string
  children: ComponentChildren
  class?: string
  current?: boolean
  /** An accessible name that starts with the visible text and says more (`Logs of primary`). */
  label?: string
}) {
  return (
    <a
      href={props.href}
      class={props.class}
      aria-label={props.label}
      aria-current={props.current ? 'page' : undefined}
      onClick={(event) => {
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
        event.preventDefault()
        navigate(props.href)
      }}
    >
      {props.children}
    </a>
  )
}
