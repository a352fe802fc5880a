/**
 * A program's environment variables declared once, as a table: each reader (the API's, the chat
 * server's, the CLI's) reads only names its table declares and takes plain defaults from it, and a test
 * checks the table against the docs (`@svc/testing`'s env-docs.ts).
 */

export interface EnvVariable {
  readonly name: string
  /** The value used when the variable is unset or empty, as a person would write it. */
  readonly fallback?: string
  /** The default in words, where it is not one plain value (the docs show it instead). */
  readonly defaultText?: string
  /** What it decides, in the docs' words (Markdown). */
  readonly meaning: string
}

/** The declared fallback of `name` in `table`; throws when it declares none (a bug, not input). */
export function declaredFallback<Name extends string>(table: readonly EnvVariable[], name: Name): string {
  const found = table.find((v) => v.name === name)
  if (found?.fallback === undefined) throw new Error(`${name} declares no fallback`)
  return found.fallback
}
