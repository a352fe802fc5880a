import type { ComponentChildren } from 'preact'

/** One term and its value in a `<dl class="facts">` or `<dl class="metrics">`. */
export function Fact({ term, children }: { term: string; children: ComponentChildren }) {
  return (
    <div>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </div>
  )
}
