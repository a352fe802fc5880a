#!/usr/bin/env node
// `slot …` is `svc slot …`.
import { run } from '../main'

process.exitCode = await run(['slot', ...process.argv.slice(2)])
