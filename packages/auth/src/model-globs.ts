/**
 * The models a token may use (`models = ["qwen3-8b*", "embed"]` in tokens.toml): globs over the names
 * a client sends (aliases, registry refs, slot names). `*` is any run of characters (`/` and `:`
 * included: `hf.co/unsloth/*` covers every quant of every repo of that owner), `?` one character;
 * every other character stands for itself; case counts, as it does for refs.
 *
 * A hand-written matcher, not picomatch (which the tree holds only through Vite): picomatch is a path
 * matcher — its `*` stops at `/` and `[`, `{`, `!`, `+(` are syntax — and model names are no paths.
 * Two wildcards compile to one anchored RegExp, made once per verified token.
 */
import * as v from 'valibot'

/** At most this many globs per token, each at most `MODEL_GLOB_MAX` characters. */
export const MODEL_GLOBS_MAX = 64
export const MODEL_GLOB_MAX = 256

/** One glob: printable, no white space, 1–256 characters. */
export const ModelGlobSchema = v.pipe(
  v.string('a string'),
  v.minLength(1, 'not empty'),
  v.maxLength(MODEL_GLOB_MAX, `at most ${MODEL_GLOB_MAX} characters`),
  v.regex(/^[^\p{C}\p{Z}]+$/u, 'printable characters and no spaces'),
)

/** The list in tokens.toml: 1–64 globs (a token without the key may use every model). */
export const ModelGlobsSchema = v.pipe(
  v.array(ModelGlobSchema, 'a list of model names or globs'),
  v.minLength(1, 'at least one model (leave the key out for every model)'),
  v.maxLength(MODEL_GLOBS_MAX, `at most ${MODEL_GLOBS_MAX} models`),
)

/** Whether a name a client sent may be used: compiled once from a token's globs. */
export interface ModelGlobs {
  readonly globs: readonly string[]
  matches(name: string): boolean
}

/** Compiles `globs` (already valid) into one matcher. */
export function compileModelGlobs(globs: readonly string[]): ModelGlobs {
  const body = globs.map(globSource).join('|')
  const pattern = new RegExp(`^(?:${body})$`, 'u')
  return Object.freeze({ globs: Object.freeze([...globs]), matches: (name: string) => pattern.test(name) })
}

function globSource(glob: string): string {
  let out = ''
  for (const ch of glob) {
    if (ch === '*') out += '.*'
    else if (ch === '?') out += '.'
    else out += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&')
  }
  return out
}

/**
 * Reads the CLI's `--models 'qwen3-8b*,embed'` (and the dashboard's field): comma-separated, blanks
 * dropped; empty → null (every model). The entries are checked where the token is made.
 */
export function parseModelGlobList(spec: string | undefined): string[] | null {
  const globs = (spec ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
  return globs.length > 0 ? globs : null
}
