import type { ComponentChildren } from 'preact'

export interface DataTableProps {
  /** What the table lists; read by screen readers, shown only when `showCaption`. */
  caption: string
  showCaption?: boolean
  /** The column headings, in order (a heading may be an element, e.g. a visually hidden "Actions"). */
  columns: readonly ComponentChildren[]
  class?: string
  /** The rows (`<tr>`s). */
  children: ComponentChildren
}

/** A table of rows under column headings, scrolling sideways inside its box on a narrow screen. */
export function DataTable({ caption, showCaption, columns, class: cls, children }: DataTableProps) {
  return (
    <div class="table-wrap">
      <table class={cls}>
        <caption class={showCaption ? undefined : 'svc-visually-hidden'}>{caption}</caption>
        <thead>
          <tr>
            {columns.map((c, i) => (
              <th key={i} scope="col">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  )
}
