import { randomBytes } from 'node:crypto'

/** A random, URL-safe id (96 bits): unguessable, so an id alone reveals nothing about other users. */
export function newId(): string {
  return randomBytes(12).toString('base64url')
}

/** Ids the store hands out: exactly what `newId` makes. Anything else is refused before a query. */
export const ID_PATTERN = /^[A-Za-z0-9_-]{16}$/
