import type { ComponentChildren } from 'preact'
import { useId } from 'preact/hooks'

export interface FileButtonProps {
  /** The button's words. */
  children: ComponentChildren
  /** The `accept` of the file input: `"image/*"`, a list of types. */
  accept: string
  multiple?: boolean
  /** The files picked (the input is cleared after, so picking the same file again reports it again). */
  onFiles: (files: File[]) => void
}

/**
 * A file picker that looks like a button: a button-styled `<label>` for a visually hidden file input,
 * so it stays reachable by keyboard and named by its words.
 */
export function FileButton({ children, accept, multiple, onFiles }: FileButtonProps) {
  const id = useId()
  return (
    <>
      <label for={id} class="svc-button">
        {children}
      </label>
      <input
        id={id}
        class="svc-visually-hidden"
        type="file"
        accept={accept}
        multiple={multiple}
        onChange={(event) => {
          const input = event.target as HTMLInputElement
          const files = [...(input.files ?? [])]
          input.value = ''
          onFiles(files)
        }}
      />
    </>
  )
}
