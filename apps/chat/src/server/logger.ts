/**
 * One JSON object per line on stderr, like the API's logger (apps do not import each other, so the
 * chat server keeps this small copy).
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

export function createLogger(options: { level?: LogLevel; write?: (line: string) => void } = {}): Logger {
  const min = ORDER[options.level ?? 'info']
  const write = options.write ?? ((line: string) => process.stderr.write(line))
  const log = (level: LogLevel) => (msg: string, fields?: LogFields) => {
    if (ORDER[level] < min) return
    write(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }, errorReplacer)}\n`)
  }
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') }
}

export const silentLogger: Logger = createLogger({ write: () => {} })

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message }
  return value
}
