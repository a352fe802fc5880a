import { parse as parseToml } from 'smol-toml'

/** TOML text parsed, or why it is not TOML. */
export type TomlText = { ok: true; data: unknown } | { ok: false; error: string }

/**
 * Parses the text of a TOML file that svc reads (images.toml, models.toml, upstreams.toml). A
 * syntax error is a value, `<file>: not valid TOML (<the parser's first line>)`, never thrown; what
 * the data must hold is the caller's schema. `file` only names the file in the message.
 */
export function parseTomlText(text: string, file: string): TomlText {
  try {
    return { ok: true, data: parseToml(text) }
  } catch (error) {
    return { ok: false, error: `${file}: not valid TOML (${(error as Error).message.split('\n')[0]})` }
  }
}
