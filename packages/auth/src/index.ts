/**
 * @svc/auth: the token format, the `tokens.toml` store, argon2id, the verified-token cache, failure
 * throttling, trusted proxy addresses and the scope policy. Plain data in and out: no HTTP framework.
 */
// biome-ignore-all assist/source/organizeImports: grouped by topic (a table of contents), not sorted

// Who may do what: scopes, route classes, the principal a request runs as.
export * from './policy'
export * from './principal'

// Tokens: their format, the file, the store, and verifying them.
export * from './token-format'
export * from './tokens-file'
export * from './tokens-file-check'
export * from './token-store'
export { CreateTokenInputSchema, TokenModelsInputSchema } from './token-input'
export * from './model-globs'
export * from './secret-hash'
export * from './token-verifier'

// Quotas: limits per token or identity, the in-memory meter, the rate-limit headers.
export * from './quota'
export * from './quota-meter'

// The client: its address, whether it is the trusted proxy (and the servers' shared settings of it), failure throttling.
export * from './client-address'
export * from './edge-env'
export * from './proxy-trust'
export * from './throttle'

// Browsers: which hosts svc answers to (DNS rebinding), and which pages may use it.
export * from './host-allow'
export * from './same-site'
