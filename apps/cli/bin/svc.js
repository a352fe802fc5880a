#!/usr/bin/env node
// The CLI from its TypeScript source through tsx (development, tests, `pnpm svc`). Users and the
// installed services run the build, dist/svc.js (`pnpm build`), which needs no loader.
import { register } from 'tsx/esm/api'

register()
await import('../src/entries/svc.ts')
