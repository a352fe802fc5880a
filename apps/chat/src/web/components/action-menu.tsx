import type { ComponentChildren } from 'preact'
import { useEffect, useId, useRef, useState } from 'preact/hooks'

export interface ActionMenuProps {
  /** The button's accessible name ("Conversation actions", "Message actions"). */
  label: string
  /** The items; each gets `close` to call when chosen. */
  children: (close: () => void) => ComponentChildren
  class?: string
}

/**
 * A "⋯" button that opens a small menu of actions (role `menu`; items are `menuitem` buttons or
 * links; the first takes the focus, ↑/↓ move through them). Closes on a choice, on Escape (focus back
 * on the button) and on a click elsewhere. The items
 * exist only while it is open, so they are not in the page (nor in the tab order) until asked for.
 */
export function ActionMenu({ label, children, class: className }: ActionMenuProps) {
  const [open, setOpen] = useState(false)
  // Opens upwards when the button sits low on the screen (the last message, just above the box).
  const [up, setUp] = useState(false)
  const root = useRef<HTMLDivElement>(null)
  const button = useRef<HTMLButtonElement>(null)
  const id = useId()
  useEffect(() => {
    if (!open) return
    const outside = (event: PointerEvent) => {
      if (!root.current?.contains(event.target as Node)) setOpen(false)
    }
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        // Up and down move through the items, round the ends, as in a menu.
        const items = [...(root.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])]
        const at = items.indexOf(document.activeElement as HTMLElement)
        const step = event.key === 'ArrowDown' ? 1 : -1
        items[(at + step + items.length) % items.length]?.focus()
        event.preventDefault()
        return
      }
      if (event.key !== 'Escape') return
      setOpen(false)
      button.current?.focus()
    }
    document.addEventListener('pointerdown', outside)
    document.addEventListener('keydown', onKey)
    // The first item takes the focus, as a menu's does.
    root.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus()
    return () => {
      document.removeEventListener('pointerdown', outside)
      document.removeEventListener('keydown', onKey)
    }
  }, [open])
  return (
    <div class={`chat-menu ${className ?? ''}`} ref={root} data-up={up ? '' : undefined}>
      <button
        ref={button}
        type="button"
        class="svc-button chat-menu-button"
        aria-label={label}
        title={label}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? id : undefined}
        onClick={() => {
          const rect = button.current?.getBoundingClientRect()
          setUp(rect !== undefined && rect.bottom > window.innerHeight * 0.6)
          setOpen((o) => !o)
        }}
      >
        ⋯
      </button>
      {open ? (
        <div id={id} class="chat-menu-items" role="menu" aria-label={label}>
          {children(() => setOpen(false))}
        </div>
      ) : null}
    </div>
  )
}

/**
 * One action of an {@link ActionMenu}: a `menuitem` button that closes the menu, then runs `onPick`
 * (`close` is the function the menu hands its children).
 */
export function MenuItem(props: {
  close: () => void
  onPick: () => unknown
  disabled?: boolean
  class?: string
  children: ComponentChildren
}) {
  return (
    <button
      type="button"
      role="menuitem"
      class={props.class}
      disabled={props.disabled}
      onClick={() => {
        props.close()
        void props.onPick()
      }}
    >
      {props.children}
    </button>
  )
}
