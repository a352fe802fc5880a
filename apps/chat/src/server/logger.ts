// The chat server logs with the structured logger svc's servers share (JSON lines on stderr).
export {
  createLogger,
  type LogFields,
  type Logger,
  type LoggerOptions,
  type LogLevel,
  silentLogger,
} from '@svc/core/node'
