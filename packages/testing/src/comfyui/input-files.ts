/**
 * ComfyUI's `folder_paths.get_annotated_filepath` / `exists_annotated_filepath`: a LoadImage name is
 * `<name>` or `<subfolder>/<name>` in the input directory, or ends in ` [input]` / ` [output]` /
 * ` [temp]` to pick that directory. A name that leaves its directory resolves to nothing here.
 */
import { existsSync, statSync } from 'node:fs'
import { relative, resolve, sep } from 'node:path'

export interface ComfyDirs {
  input: string
  output: string
  temp: string
}

/** The file a LoadImage / LoadImageMask `image` value names, or undefined when it is outside its folder. */
export function annotatedPath(name: string, dirs: ComfyDirs): string | undefined {
  let base = dirs.input
  let file = name
  for (const [tag, dir] of [
    [' [output]', dirs.output],
    [' [input]', dirs.input],
    [' [temp]', dirs.temp],
  ] as const) {
    if (file.endsWith(tag)) {
      file = file.slice(0, -tag.length)
      base = dir
    }
  }
  const path = resolve(base, file)
  const rel = relative(base, path)
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`)) return undefined
  return path
}

/** `exists_annotated_filepath`: the named file exists (a file, not a folder). */
export function inputExists(name: string, dirs: ComfyDirs): boolean {
  const path = annotatedPath(name, dirs)
  return path !== undefined && existsSync(path) && statSync(path).isFile()
}
