#!/usr/bin/env node
// `slot …` is `svc slot …`; from source, as bin/svc.js (the build: dist/slot.js).
import { register } from 'tsx/esm/api'

register()
await import('../src/entries/slot.ts')
