/**
 * The one place that knows how svc's servers are launched: from the build that `pnpm build` makes
 * (plain JavaScript, what users and the installed services run) or, when this CLI itself runs from
 * its TypeScript source through tsx (development and tests), from the source.
 */
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { CliError } from './context'

declare global {
  /** Defined as `true` by scripts/build-server.mjs in every bundle; absent under tsx. */
  var SVC_BUILT: boolean | undefined
}

/** Whether this CLI runs from the build (dist/) rather than from its source. */
export const BUILT = globalThis.SVC_BUILT === true

export type ServerApp = 'api' | 'chat'

// `import.meta.url` is this source file's URL in the bundle too (scripts/build-server.mjs), so these
// paths hold from both.
const at = (path: string) => fileURLToPath(new URL(path, import.meta.url))
const ENTRIES: Record<ServerApp, { built: string; source: string }> = {
  api: { built: at('../../api/dist/serve.js'), source: at('../../api/src/serve.ts') },
  chat: { built: at('../../chat/dist-server/serve.js'), source: at('../../chat/src/server/serve.ts') },
}

/** The built CLI: what the installed services and `pnpm start` run. */
export const BUILT_CLI = at('../dist/svc.js')

/** The files of the build that are missing (`pnpm build` makes them); empty when svc is built. */
export function missingBuild(): string[] {
  return [BUILT_CLI, ENTRIES.api.built, ENTRIES.chat.built].filter((f) => !existsSync(f))
}

/**
 * The module that runs `app`'s server when imported (it reads the environment, listens, and exits
 * on SIGTERM/SIGINT). Throws a CliError saying to build when the built file is missing.
 */
export function serverEntry(app: ServerApp): string {
  const entry = ENTRIES[app]
  if (!BUILT) return entry.source
  if (!existsSync(entry.built)) {
    throw new CliError(
      `svc is not built (${entry.built} is missing): run pnpm build (./scripts/setup.sh does it)`,
    )
  }
  return entry.built
}

/** node's arguments that run `app`'s server as a process of its own (no tsx when built). */
export function serverArgv(app: ServerApp): string[] {
  const entry = serverEntry(app)
  return BUILT ? [entry] : ['--import', 'tsx', entry]
}
