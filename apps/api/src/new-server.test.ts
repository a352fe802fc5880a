import { execFile } from 'node:child_process'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const API_ROOT = dirname(dirname(fileURLToPath(import.meta.url)))

// In a child with V8's natives syntax (%HaveSameMap: do two objects share a hidden class?): one
// server answers a limited token (counted, rate-limit headers added), a token without limits (counted)
// a token limited to models (noted on the request: middleware/token-models.ts) and a request that
// passed no quota gate, and reports whether their requests and their responses each have one shape.
const SCRIPT = `
import { request } from 'node:http'
import { compileModelGlobs, createQuotaMeter } from '@svc/auth'
import { noteAllowedModels } from './src/middleware/token-models.ts'
import { newServer } from './src/new-server.ts'
import { createQuotaGate } from './src/usage/quota-gate.ts'

const gate = createQuotaGate({
  meter: createQuotaMeter(),
  limitsOf: (id) => (id === 'limited' ? { requests_per_minute: 100 } : undefined),
})
const seen = []
const server = newServer().on('request', (req, res) => {
  const who = req.url.slice(1)
  const models = who === 'models' ? compileModelGlobs(['tiny*']) : undefined
  const principal = { kind: 'token', scope: 'v1-only', tokenId: who, label: who, models }
  noteAllowedModels(req, principal)
  if (who !== 'ungated') gate.admit(principal, req, res, 'id')
  seen.push({ req, res })
  res.end('ok')
})
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
const get = (path) =>
  new Promise((resolve, reject) =>
    request({ port: server.address().port, host: '127.0.0.1', path }, (res) => res.resume().on('end', resolve))
      .on('error', reject)
      .end(),
  )
for (const who of ['limited', 'unlimited', 'models', 'ungated']) await get('/' + who)
server.close()
const one = (pick) => seen.every((s) => %HaveSameMap(pick(s), pick(seen[0])))
console.log(JSON.stringify({ requests: one((s) => s.req), responses: one((s) => s.res), answered: seen.length }))
`

describe('the API server', () => {
  it('gives requests and responses one shape whether a caller is limited (in quota or models), unlimited or not counted', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', SCRIPT],
      { cwd: API_ROOT, timeout: 30_000 },
    )
    expect(JSON.parse(stdout)).toEqual({ requests: true, responses: true, answered: 4 })
  })
})
