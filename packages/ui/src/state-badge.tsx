import type { SlotState } from '@svc/core'

/**
 * How each slot state looks: a word and a glyph (so that state never rests on colour alone); its
 * colour is the CSS custom property `--svc-state-<state>`. A `Record` over `SlotState`: a state added
 * in core fails to compile here until it has a look.
 */
export const STATE_LOOK: Readonly<Record<SlotState, { label: string; glyph: string; busy: boolean }>> = {
  offline: { label: 'Offline', glyph: '○', busy: false },
  pulling: { label: 'Pulling', glyph: '↓', busy: true },
  starting: { label: 'Starting', glyph: '◔', busy: true },
  warming: { label: 'Warming', glyph: '◑', busy: true },
  ready: { label: 'Ready', glyph: '●', busy: false },
  serving: { label: 'Serving', glyph: '▶', busy: false },
  idle: { label: 'Idle', glyph: '◉', busy: false },
  unloading: { label: 'Unloading', glyph: '◌', busy: true },
}

export interface StateBadgeProps {
  state: SlotState
  /** Extra words after the state, e.g. `"2 in flight"`. */
  detail?: string
}

/**
 * A slot state as a badge: glyph + word, coloured by `--svc-state-<state>`. Busy states (pulling,
 * starting, warming, unloading) pulse unless the user prefers reduced motion.
 */
export function StateBadge({ state, detail }: StateBadgeProps) {
  const look = STATE_LOOK[state]
  return (
    <span
      class="svc-badge"
      data-state={state}
      data-busy={look.busy ? '' : undefined}
      // One rule colours every state: the badge names its own custom property (the CSP allows inline styles).
      style={`--svc-badge-color: var(--svc-state-${state})`}
    >
      <span class="svc-badge-glyph" aria-hidden="true">
        {look.glyph}
      </span>
      {look.label}
      {detail ? <span class="svc-badge-detail"> · {detail}</span> : null}
    </span>
  )
}
