/**
 * @svc/auth: the token format, the `tokens.toml` store, argon2id, the verified-token cache, failure
 * throttling, trusted proxy addresses and the scope policy. Plain data in and out: no HTTP framework.
 */
export * from './client-address'
export * from './policy'
export * from './principal'
export * from './proxy-trust'
export * from './secret-hash'
export * from './throttle'
export * from './token-format'
export * from './token-store'
export * from './token-verifier'
export * from './tokens-file'
export * from './tokens-file-check'
