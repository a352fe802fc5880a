#!/usr/bin/env node
// `slot …` is `svc slot …`.
import { register } from 'tsx/esm/api'

register()
const { run } = await import('../src/main.ts')
process.exitCode = await run(['slot', ...process.argv.slice(2)])
