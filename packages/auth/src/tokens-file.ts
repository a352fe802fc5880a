/**
 * `<config>/tokens.toml`: one `[[token]]` table per token. Pure text in, value out; a broken file is
 * an expected outcome (`{ ok: false, error }`), never an exception.
 *
 * ```toml
 * [[token]]
 * id = "h3K9xQ2mPz7A"
 * label = "ci runner"
 * scope = "v1-only"
 * created_at = "2025-01-01T12:00:00.000Z"
 * hash = "$argon2id$v=19$m=19456,t=2,p=1$…"
 * last_used_at = "2025-01-02T08:30:00.000Z"   # absent until first use
 * models = ["qwen3-8b*", "embed"]              # absent: every model (model-globs.ts)
 *
 * [token.limits]                               # absent when not limited; each key optional
 * requests_per_minute = 60
 * tokens_per_day = 200000
 * ```
 */
import { parse as parseToml, stringify as stringifyToml, TomlError } from 'smol-toml'
import * as v from 'valibot'
import { ModelGlobsSchema } from './model-globs'
import { SCOPES } from './policy'
import { QuotaLimitsSchema } from './quota'
import { TOKEN_ID_PATTERN } from './token-format'

export const TOKEN_LABEL_MAX = 64

/**
 * A label: 1–64 printable characters (code points), not only white space. Control, format,
 * private-use and unassigned characters and line separators are refused, so a label can be printed
 * in a table or a log line as it is.
 */
export const TokenLabelSchema = v.pipe(
  v.string('a string'),
  v.check((s) => s.length > 0 && [...s].length <= TOKEN_LABEL_MAX, `1 to ${TOKEN_LABEL_MAX} characters`),
  v.regex(/^[^\p{C}\p{Zl}\p{Zp}]*$/u, 'printable characters only'),
  v.regex(/\S/u, 'not only white space'),
)

const IsoTimeSchema = v.pipe(v.string(), v.isoTimestamp('an ISO 8601 time'))

export const TokenRecordSchema = v.object({
  id: v.pipe(v.string(), v.regex(TOKEN_ID_PATTERN, '12 characters of [A-Za-z0-9]')),
  label: TokenLabelSchema,
  scope: v.picklist(SCOPES, `one of ${SCOPES.join(', ')}`),
  created_at: IsoTimeSchema,
  hash: v.pipe(v.string(), v.startsWith('$argon2id$', 'an argon2id hash')),
  last_used_at: v.optional(IsoTimeSchema),
  /** Quotas (`[token.limits]`): absent when the token is not limited. */
  limits: v.optional(QuotaLimitsSchema),
  /** The models it may use (globs over the names clients send): absent for every model. */
  models: v.optional(ModelGlobsSchema),
})
export type TokenRecord = v.InferOutput<typeof TokenRecordSchema>

export const TokensFileSchema = v.object({
  token: v.optional(v.array(TokenRecordSchema), []),
})

export type TokensFileResult = { ok: true; records: TokenRecord[] } | { ok: false; error: string }

const HEADER = `# svc API tokens (managed by \`svc token\` and /api/auth/tokens; mode 0600).
# Secrets are stored only as argon2id hashes. Delete a [[token]] table to revoke that token.
`

/**
 * Parses the file's text; `path` only names the file in the error. Errors name the line: the TOML
 * parser's for syntax errors, else the line of the offending key (or of its `[[token]]` header).
 */
export function parseTokensFile(text: string, path: string): TokensFileResult {
  let data: unknown
  try {
    data = parseToml(text)
  } catch (error) {
    if (error instanceof TomlError) {
      const detail = error.message.split('\n')[0]
      return {
        ok: false,
        error: `${path}: line ${error.line}, column ${error.column}: not valid TOML: ${detail}`,
      }
    }
    return { ok: false, error: `${path}: not valid TOML: ${String(error)}` }
  }
  const result = v.safeParse(TokensFileSchema, data)
  if (!result.success) {
    const issue = result.issues[0]
    const keys = issue.path?.map((p) => p.key) ?? []
    const line = lineOf(text, keys)
    const where = line ? `line ${line}: ` : ''
    return { ok: false, error: `${path}: ${where}${v.getDotPath(issue) ?? '(root)'}: ${issue.message}` }
  }
  const seen = new Set<string>()
  for (const [index, record] of result.output.token.entries()) {
    if (seen.has(record.id)) {
      const line = lineOf(text, ['token', index, 'id'])
      return {
        ok: false,
        error: `${path}: ${line ? `line ${line}: ` : ''}token id ${record.id} appears twice`,
      }
    }
    seen.add(record.id)
  }
  return { ok: true, records: result.output.token }
}

/** The 1-based line of `token[i].key` in the text (or of the i-th `[[token]]` header); 0 if unknown. */
function lineOf(text: string, keys: readonly unknown[]): number {
  const [table, index, key] = keys
  if (table !== 'token' || typeof index !== 'number') return 0
  const lines = text.split('\n')
  let seen = -1
  let header = -1
  for (let i = 0; i < lines.length; i++) {
    if (/^\s*\[\[\s*token\s*\]\]/.test(lines[i]!) && ++seen === index) {
      header = i
      break
    }
  }
  if (header < 0) return 0
  if (typeof key !== 'string') return header + 1
  for (let i = header + 1; i < lines.length && !/^\s*\[/.test(lines[i]!); i++) {
    const name = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    if (new RegExp(`^\\s*"?${name}"?\\s*=`).test(lines[i]!)) return i + 1
  }
  return header + 1
}

/** Renders records as the file's text (a header comment, then one table per token). */
export function serializeTokensFile(records: readonly TokenRecord[]): string {
  if (records.length === 0) return HEADER
  const tables = records.map((r) => {
    const { last_used_at, ...rest } = r
    return last_used_at === undefined ? rest : { ...rest, last_used_at }
  })
  return `${HEADER}\n${stringifyToml({ token: tables })}\n`
}
