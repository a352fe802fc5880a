#!/usr/bin/env node
// Runs the TypeScript source directly (apps run from source through tsx; nothing to build).
import { register } from 'tsx/esm/api'

register()
const { run } = await import('../src/main.ts')
process.exitCode = await run(process.argv.slice(2))
