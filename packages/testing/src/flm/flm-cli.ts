/**
 * The `flm` program of the stand-in (run through tsx by the script `writeFlmProgram` writes), so the
 * process runtime can start it exactly as it starts the real one:
 *
 *   flm serve [<tag>] [--host H] [--port|-p N] [--asr|-a 0|1] [--embed|-e 0|1] [--ctx-len|-c N]
 *             [--q-len|-q N] [--pmode M] [--quiet]
 *   flm version [--json]
 *   flm list [--json]
 *
 * Like flm, boolean options take a value (`--asr 1`); a bare `--asr` is an error. The port defaults
 * to `FLM_SERVE_PORT`, then 52625. `FLM_STANDIN_JOB_MS` sets how long each NPU job takes.
 */

import { testEnv } from '../test-env'
import { FLM_STANDIN_TAGS, flmTagKind } from './flm-catalog'
import { createFlmServer, FLM_STANDIN_VERSION, type FlmStandInOptions } from './flm-server'

const VALUED: Record<string, string> = {
  '--host': 'host',
  '--port': 'port',
  '-p': 'port',
  '--asr': 'asr',
  '-a': 'asr',
  '--embed': 'embed',
  '-e': 'embed',
  '--ctx-len': 'ctxLen',
  '-c': 'ctxLen',
  '--q-len': 'qLen',
  '-q': 'qLen',
  '--pmode': 'pmode',
  '--socket': 'socket',
  '-s': 'socket',
  '--cors': 'cors',
  '--prefill-chunk-len': 'prefill',
}

function fail(message: string): never {
  process.stderr.write(`Error: ${message}\n`)
  process.exit(2)
}

function flag(values: Record<string, string>, key: string): boolean {
  const v = values[key]
  if (v === undefined) return false
  if (v !== '0' && v !== '1') fail(`--${key} takes 0 or 1, got "${v}"`)
  return v === '1'
}

function serve(args: string[]): void {
  const values: Record<string, string> = {}
  let tag: string | undefined
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string
    if (arg === '--quiet') continue
    const key = VALUED[arg]
    if (key) {
      const value = args[++i]
      if (value === undefined || value.startsWith('-')) fail(`option ${arg} needs a value`)
      values[key] = value
    } else if (arg.startsWith('-')) {
      fail(`unknown option ${arg}`)
    } else if (tag === undefined) {
      tag = arg
    } else {
      fail(`unexpected argument ${arg}`)
    }
  }
  const port = values.port === undefined ? testEnv.flm.servePort : Number(values.port)
  const options: FlmStandInOptions = {
    host: values.host ?? '127.0.0.1',
    port,
    asr: flag(values, 'asr'),
    embed: flag(values, 'embed'),
    jobDelayMs: testEnv.flm.jobDelayMs,
    ...(tag !== undefined ? { tag } : {}),
    ...(values.ctxLen ? { ctxLen: Number(values.ctxLen) } : {}),
    ...(values.qLen ? { qLen: Number(values.qLen) } : {}),
  }
  let built: ReturnType<typeof createFlmServer>
  try {
    built = createFlmServer(options)
  } catch (error) {
    fail((error as Error).message)
  }
  const { server, state } = built
  server.once('error', (error) => fail(`cannot listen on ${options.host}:${port}: ${error.message}`))
  server.listen(port, options.host, () => {
    process.stdout.write(
      `[FLM] stand-in ${FLM_STANDIN_VERSION} serving ${state.loaded ?? '(no LLM)'}${state.asr ? ' +asr' : ''}${state.embed ? ' +embed' : ''} on http://${options.host}:${port}\n`,
    )
  })
  const stop = () => server.close(() => process.exit(0))
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
}

const [command, ...rest] = process.argv.slice(2)
if (command === 'serve') serve(rest)
else if (command === 'version') {
  process.stdout.write(
    rest.includes('--json')
      ? `${JSON.stringify({ version: FLM_STANDIN_VERSION })}\n`
      : `FLM v${FLM_STANDIN_VERSION}\n`,
  )
} else if (command === 'list') {
  const models = FLM_STANDIN_TAGS.map((t) => ({ name: t, model: t, installed: true, label: [flmTagKind(t)] }))
  process.stdout.write(
    rest.includes('--json')
      ? `${JSON.stringify({ models })}\n`
      : `Models:\n${FLM_STANDIN_TAGS.map((t) => `  - ${t}`).join('\n')}\n`,
  )
} else fail(`unknown command ${command ?? '(none)'}; try serve, version or list`)
