#!/usr/bin/env node
// The chat server. Runs the TypeScript source through tsx's loader in this same process (no second
// process, so signals sent to this pid reach the server).
import { register } from 'tsx/esm/api'

register()
await import('../src/server/serve.ts')
