import type { Db } from './database'
import type { User } from './types'

/** People, created on their first visit from the identity the proxy vouches for (or `local`). */
export function createUserRepo(db: Db) {
  const find = db.prepare<[string], User>('SELECT id, identity FROM users WHERE identity = ?')
  const insert = db.prepare<[string, number]>(
    'INSERT INTO users (identity, created_at) VALUES (?, ?) ON CONFLICT (identity) DO NOTHING',
  )
  return {
    /** The user with this identity, created when new. Idempotent. */
    ensure(identity: string, now = Date.now()): User {
      const found = find.get(identity)
      if (found) return found
      insert.run(identity, now)
      return find.get(identity)!
    },
  }
}
