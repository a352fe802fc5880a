import {
  buildLlamaServer,
  buildWhisperServer,
  LLAMA_BUILD_BACKENDS,
  type LlamaBuildBackend,
} from '@svc/engines'
import { CliError, type Command } from '../context'
import { parseOptions } from '../parse-options'

export const enginesCommand: Command = {
  name: 'engines',
  summary: 'build upstream engines (llama-server, whisper-server) from source into the cache',
  help: `Usage: svc engines build llama-server|whisper-server [--backend cpu|vulkan|cuda|rocm] [--jobs N] [--force]

llama-server: upstream llama.cpp's server, from the source the node-llama-cpp package ships, into
~/.cache/svc/engines/llama-server/<release>-<commit>-<backend>/ (SVC_CACHE_DIR overrides the cache).
whisper-server: upstream whisper.cpp's server, from the source @fugood/whisper.node ships (with
ggml from the same llama.cpp source), into ~/.cache/svc/engines/whisper-server/<version>/.
An existing build is reused. GPU backends need their SDK installed (Vulkan headers and glslc,
CUDA toolkit, ROCm/HIP). svc finds engines in this order: SVC_LLAMA_SERVER / SVC_WHISPER_SERVER,
PATH, the cache.`,
  async run(args, ctx) {
    const usage =
      'usage: svc engines build llama-server|whisper-server [--backend cpu|vulkan|cuda|rocm] [--jobs N] [--force]'
    const { values, positionals } = parseOptions('svc engines', usage, args, {
      backend: { type: 'string' },
      jobs: { type: 'string', short: 'j' },
      force: { type: 'boolean' },
    })
    const engine = positionals[1]
    if (positionals[0] !== 'build' || (engine !== 'llama-server' && engine !== 'whisper-server')) {
      throw new CliError(
        'usage: svc engines build llama-server|whisper-server [--backend cpu|vulkan|cuda|rocm] [--jobs N] [--force]',
        2,
      )
    }
    const backend = (values.backend ?? 'cpu') as LlamaBuildBackend
    if (!LLAMA_BUILD_BACKENDS.includes(backend))
      throw new CliError(`--backend must be one of ${LLAMA_BUILD_BACKENDS.join(', ')}`, 2)
    const jobs = values.jobs ? Number(values.jobs) : undefined
    if (jobs !== undefined && (!Number.isInteger(jobs) || jobs < 1))
      throw new CliError('--jobs must be a positive integer', 2)
    let lastPercent = ''
    const build = engine === 'whisper-server' ? buildWhisperServer : buildLlamaServer
    const result = await build({
      backend,
      force: values.force ?? false,
      ...(jobs ? { jobs } : {}),
      env: ctx.env,
      onLine: (line) => {
        // cmake prints "[ 45%] Building …": show the percentage, not thousands of lines
        const pct = /^\[\s*(\d+)%\]/.exec(line)?.[1]
        if (pct !== undefined) {
          if (pct !== lastPercent) {
            lastPercent = pct
            ctx.stdout.write(
              ctx.stdout.isTTY ? `\r\x1b[2Kbuilding ${engine}: ${pct}%` : `building ${engine}: ${pct}%\n`,
            )
          }
        } else if (!/^(--|\s*$)/.test(line) && !/warning/i.test(line)) {
          if (/^(cloning|assembling|configuring|building|built)/.test(line))
            ctx.stdout.write(`${ctx.stdout.isTTY ? '\r\x1b[2K' : ''}${line}\n`)
        }
      },
    })
    if (ctx.stdout.isTTY) ctx.stdout.write('\r\x1b[2K')
    ctx.stdout.write(`${result.cached ? 'already built' : 'built'}: ${result.path} (${result.version})\n`)
    return 0
  },
}
