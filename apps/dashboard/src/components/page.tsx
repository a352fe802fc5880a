import type { ComponentChildren } from 'preact'
import { useEffect, useId } from 'preact/hooks'

export interface PageProps {
  /** The page's heading; also the browser tab's title (`<title> · svc`) unless `tabTitle` says more. */
  title: string
  tabTitle?: string
  /** Controls beside the heading (filters, a "New" button): the heading then sits in a `page-head` row. */
  tools?: ComponentChildren
  /** `stack` for a page of cards. */
  class?: string
  children: ComponentChildren
}

/** A dashboard page: a section named by its heading, the tab's title kept in step, tools beside the heading. */
export function Page({ title, tabTitle, tools, class: cls, children }: PageProps) {
  const id = useId()
  const tab = `${tabTitle ?? title} · svc`
  useEffect(() => {
    document.title = tab
  }, [tab])
  const heading = <h1 id={id}>{title}</h1>
  return (
    <section aria-labelledby={id} class={cls}>
      {tools ? (
        <div class="page-head">
          {heading}
          {tools}
        </div>
      ) : (
        heading
      )}
      {children}
    </section>
  )
}
