import { readFileSync } from 'node:fs'

/**
 * The version of svc: the root package.json's, read once. The one source for the API, the chat
 * server and the CLI (`svc --version`); a bundle keeps finding the file, since the build gives each
 * source file its own `import.meta.url` (scripts/build-server.mjs).
 */
export const SVC_VERSION: string = (() => {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as {
      version?: string
    }
    return pkg.version ?? '0.0.0'
  } catch {
    return '0.0.0'
  }
})()
