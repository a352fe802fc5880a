#!/usr/bin/env node
// `pnpm start` / `pnpm stop`: the built CLI's `svc start` / `svc stop` (apps/cli/dist/svc.js). The
// servers start in the background and this returns, so no pnpm process stays resident (pnpm waits
// for its script; a foreground server would keep it running). `node scripts/start.mjs --foreground`
// runs both in this terminal instead.
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const cli = fileURLToPath(new URL('../apps/cli/dist/svc.js', import.meta.url))
if (!existsSync(cli)) {
  process.stderr.write('svc is not built: run pnpm build (./scripts/setup.sh does it)\n')
  process.exit(1)
}
const args = process.argv.slice(2)
process.argv.splice(2, args.length, ...(args[0] === '--stop' ? ['stop'] : ['start', ...args]))
await import(cli)
