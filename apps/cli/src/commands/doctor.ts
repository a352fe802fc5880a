/**
 * `svc doctor`: the health check a person runs first. Engines found, ports free (or held by svc),
 * config and state dirs writable, each slot's backend possible here (the API's verdict, or with the
 * API down the same picker over the slot files), the container engine (optional), auth mode; for
 * each problem what to fix. `svc doctor containers` lists svc's containers (see doctor-containers.ts).
 */
import { envPort, resolvePaths } from '@svc/core/node'
import { detectHardware } from '@svc/providers'
import { defaultImagesManifestPath, loadImageManifest } from '@svc/providers/manifest'
import { apiIsUp, callApi } from '../api-client'
import { type CliContext, type Command, UsageError } from '../context'
import { suggestion } from '../did-you-mean'
import { checkDir } from '../doctor/dirs-check'
import { checkEngines } from '../doctor/engines-check'
import { type Finding, renderFinding, summary } from '../doctor/finding'
import { checkPort } from '../doctor/ports-check'
import { checkApi, checkContainerEngine } from '../doctor/service-checks'
import { type SlotVerdict, slotFinding, slotsFromPicker } from '../doctor/slots-check'
import { cliFallback, cliVar } from '../env-variables'
import { CONTAINERS_HELP, doctorContainers } from './doctor-containers'

const HELP = `Usage: svc doctor [--url URL] | svc doctor containers [--remove-orphans]

  svc doctor
      Checks what svc needs on this machine, one line each (✓ fine, ! worth knowing, ✗ blocks svc),
      with what to do for each problem:
        engines      llama-server and whisper-server found (path, version), or how to build them
        ports        the API's (SVC_PORT, 8080) and the chat app's (SVC_CHAT_PORT, 3001) are free,
                     or held by svc itself
        dirs         the config and state dirs (SVC_CONFIG_DIR, SVC_STATE_DIR) are writable
        slots        each slot's backend can run here: the API's verdict when it runs (--url URL,
                     else SVC_API_URL), else the same picker over the slot files
        containers   a container engine answers (only container slots need one: never a failure)
        auth         on or off, as the running API says
      Exit status: 0 when nothing blocks svc, 1 otherwise.
${CONTAINERS_HELP}`

export const doctorCommand: Command = {
  name: 'doctor',
  summary:
    "check this machine for svc (engines, ports, dirs, slots, containers, auth); list svc's containers",
  help: HELP,
  api: true,
  async run(args, ctx) {
    if (args[0] === 'containers') return doctorContainers(args.slice(1), ctx)
    // The old form: `svc doctor --remove-orphans` is `svc doctor containers --remove-orphans`.
    if (args.length === 1 && args[0] === '--remove-orphans') return doctorContainers(args, ctx)
    if (args.length > 0) {
      const arg = args[0]!
      const option = arg.startsWith('-')
      const near = suggestion(arg, option ? ['--remove-orphans', '--url'] : ['containers'], !option)
      throw new UsageError(
        'svc doctor',
        option ? `unknown option ${arg}${near}` : `unknown command "${arg}"${near}`,
        'usage: svc doctor | svc doctor containers [--remove-orphans]',
      )
    }
    return checkup(ctx)
  },
}

async function checkup(ctx: CliContext): Promise<number> {
  const paths = resolvePaths(ctx.env)
  const manifestFile = cliVar(ctx.env, 'SVC_IMAGES_MANIFEST') || defaultImagesManifestPath()
  const manifest = await loadImageManifest(manifestFile).catch(() => undefined)
  const [up, facts] = await Promise.all([
    apiIsUp(ctx),
    detectHardware({ env: ctx.env, ...(manifest ? { manifest } : {}) }),
  ])
  const findings: Finding[] = []
  const add = (...more: Finding[]) => {
    for (const f of more) {
      findings.push(f)
      ctx.stdout.write(renderFinding(f))
    }
  }
  add(...(await checkEngines(ctx.env, facts)))
  add(...(await Promise.all(ports(ctx).map((p) => ('fail' in p ? p.fail : checkPort(p))))))
  add(await checkDir('config dir', 'SVC_CONFIG_DIR', paths.configDir))
  add(await checkDir('state dir', 'SVC_STATE_DIR', paths.stateDir))
  add(...(await checkApi(ctx, up)))
  // The API's verdicts when it answers them (it may ask for a token); else the same picker, here.
  const fromApi = up ? await slotsFromApi(ctx) : []
  const slots = fromApi.length
    ? fromApi
    : await slotsFromPicker({ configDir: paths.configDir, stateDir: paths.stateDir, facts, manifest })
  add(...slots.map((s) => slotFinding(s, paths.configDir)))
  add(checkContainerEngine(facts))
  ctx.stdout.write(`\n${summary(findings)}`)
  return findings.some((f) => f.mark === 'fail') ? 1 : 0
}

type PortCheck = Parameters<typeof checkPort>[0] | { fail: Finding }

/** The API's and the chat app's ports as their servers read them (SVC_PORT, SVC_CHAT_PORT). */
function ports(ctx: CliContext): PortCheck[] {
  return (
    [
      ['the API', 'SVC_PORT'],
      ['the chat app', 'SVC_CHAT_PORT'],
    ] as const
  ).map(([what, variable]) => {
    try {
      const port = envPort(variable, cliVar(ctx.env, variable), Number(cliFallback(variable)))
      return { what, variable, port }
    } catch (error) {
      return {
        fail: { mark: 'fail', text: (error as Error).message, fix: `set ${variable} to a port number` },
      }
    }
  })
}

/** The API's own verdicts (`GET /api/slots`); a slot without `runnable` (an older API) is not judged. */
async function slotsFromApi(ctx: CliContext): Promise<SlotVerdict[]> {
  const res = await callApi<{ slots?: ApiSlot[] }>(ctx, '/api/slots').catch(() => undefined)
  if (res?.status !== 200 || !Array.isArray(res.body?.slots)) return []
  return res.body.slots.map((s) => ({
    name: s.name,
    provider: s.provider,
    backend: s.backend ?? null,
    runtime: s.runtime ?? null,
    enabled: s.config?.enabled ?? false,
    runnable: s.runnable ?? null,
  }))
}

interface ApiSlot {
  name: string
  provider: string
  backend?: string | null
  runtime?: string | null
  config?: { enabled?: boolean }
  runnable?: SlotVerdict['runnable']
}
