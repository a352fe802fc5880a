/**
 * A tiny structured logger, shared by the API and the chat server: one JSON object per line on stderr. On Linux, Node writes stderr
 * synchronously when it is a file or a TTY (asynchronously only to a pipe or socket, e.g. journald
 * under systemd), so a line blocks the event loop until it is written: nothing on the inference hot
 * path logs per request, and a slow terminal slows svc down.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error'
export type LogFields = Record<string, unknown>

export interface Logger {
  debug(msg: string, fields?: LogFields): void
  info(msg: string, fields?: LogFields): void
  warn(msg: string, fields?: LogFields): void
  error(msg: string, fields?: LogFields): void
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 }

export interface LoggerOptions {
  level?: LogLevel
  write?: (line: string) => void
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const min = ORDER[options.level ?? 'info']
  const write = options.write ?? ((line: string) => process.stderr.write(line))
  const log = (level: LogLevel) => (msg: string, fields?: LogFields) => {
    if (ORDER[level] < min) return
    write(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }, errorReplacer)}\n`)
  }
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') }
}

/** A logger that drops everything (tests that assert on nothing logged use their own `write`). */
export const silentLogger: Logger = createLogger({ write: () => {} })

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message }
  return value
}
