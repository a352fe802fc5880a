/**
 * What the page may show of a server's message. The API's messages are written for operators and
 * sometimes name a command (`svc slot load …`); a web page never tells a person to run one, so such a
 * message is cut before the clause that names it.
 */
export function pageText(message: string, fallback = 'svc could not do this.'): string {
  const command = message.search(COMMAND)
  if (command < 0) return message
  let text = message.slice(0, command)
  // Drop the clause that leads into the command ("; load one with: ", ". Load it … or with ").
  for (;;) {
    text = text
      .trimEnd()
      .replace(/[,:;(]+$/, '')
      .trimEnd()
    if (!/\b(with|run|using|use|try|or|by|via)$/i.test(text)) break
    const clause = Math.max(
      text.lastIndexOf(';'),
      text.lastIndexOf('('),
      text.lastIndexOf('. '),
      text.lastIndexOf(': '),
    )
    text = clause > 0 ? text.slice(0, clause) : ''
  }
  if (!text) return fallback
  return text.endsWith('.') ? text : `${text}.`
}

/** A backtick, or `svc` followed by one of its commands. */
const COMMAND =
  /`|\bsvc (slot|models?|token|install|manifest|serve|chat|doctor|presets|engines|pull|load|start|stop)\b/

/** Whether an error (its code, else its words, for an API that predates the code) is a context overflow. */
export function isContextError(code: string | null | undefined, message: string): boolean {
  return code === 'context.too_long' || /exceed.*context|context (size|length|window)/i.test(message)
}

/** A size in decimal megabytes as people read them: `1_800_000` → "1.8 MB", `1_000_000` → "1 MB". */
export function megabytes(bytes: number): string {
  const mb = bytes / 1e6
  const shown = mb >= 10 ? Math.round(mb).toString() : mb.toFixed(1).replace(/\.0$/, '')
  return `${shown === '0' ? '0.1' : shown} MB`
}
