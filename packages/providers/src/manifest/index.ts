/**
 * `@svc/providers/manifest` (for svc's apps and tests): `manifests/images.toml`, images pinned by
 * digest, and pinning them through the registries' HTTP API.
 */
export * from './image-ref'
export * from './manifest'
export * from './pin'
export * from './registry-client'
