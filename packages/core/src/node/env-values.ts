/**
 * The environment values the API, the chat server and the CLI read the same way. Each throws an
 * `Error` whose message names the variable and the bad value, fit for a person at startup.
 */
import type { LogLevel } from './logger'

/** Parses a boolean env var: 1/true/yes/on and 0/false/no/off (any case); empty or unset → fallback. */
export function envFlag(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value.trim() === '') return fallback
  const v = value.trim().toLowerCase()
  if (['1', 'true', 'yes', 'on'].includes(v)) return true
  if (['0', 'false', 'no', 'off'].includes(v)) return false
  throw new Error(`${name} must be 1/true/yes/on or 0/false/no/off, got "${value}"`)
}

/** Parses a port to listen on: 0 (pick a free one) to 65535; empty or unset → fallback. */
export function envPort(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback
  const port = Number(value)
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`${name} must be a port number, got "${value}"`)
  return port
}

const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error']

/** Parses `SVC_LOG_LEVEL` (any case); empty or unset → `info`. */
export function envLogLevel(value: string | undefined): LogLevel {
  const level = (value || 'info').toLowerCase()
  if (!LOG_LEVELS.includes(level as LogLevel)) {
    throw new Error(`SVC_LOG_LEVEL must be debug, info, warn or error, got "${value}"`)
  }
  return level as LogLevel
}

/** Parses a count (an integer >= 1); empty or unset → fallback. */
export function envCount(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value.trim() === '') return fallback
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a whole number >= 1, got "${value}"`)
  return n
}
