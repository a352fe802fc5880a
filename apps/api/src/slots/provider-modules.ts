import { isAbsolute, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Provider } from '@svc/providers'

/**
 * Third-party providers: `SVC_PROVIDER_MODULES` lists modules (comma-separated paths or package
 * names) whose default export is a `Provider` or a function returning one. They import only
 * `@svc/providers` for the contract; svc registers them by `kind` at startup.
 */
export async function loadProviderModules(names: readonly string[]): Promise<Provider[]> {
  const providers: Provider[] = []
  for (const name of names) {
    const target = isAbsolute(name) || name.startsWith('.') ? pathToFileURL(resolve(name)).href : name
    const mod = (await import(target)) as { default?: unknown }
    const value = typeof mod.default === 'function' ? await (mod.default as () => unknown)() : mod.default
    if (!isProvider(value))
      throw new Error(
        `${name}: the default export is not a Provider (kind, backends, endpoints, startCommand, …)`,
      )
    providers.push(value)
  }
  return providers
}

function isProvider(value: unknown): value is Provider {
  const p = value as Partial<Provider> | undefined
  return (
    typeof p?.kind === 'string' &&
    Array.isArray(p.backends) &&
    Array.isArray(p.endpoints) &&
    typeof p.startCommand === 'function' &&
    typeof p.buildEnv === 'function' &&
    typeof p.healthProbe === 'function' &&
    typeof p.requestPath === 'function'
  )
}
