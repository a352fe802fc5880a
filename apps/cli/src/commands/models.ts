import { apiError, callApi } from '../api-client'
import type { ModelView } from '../api-types'
import type { CliContext, Command } from '../context'
import { bytes, table } from '../format'
import { parseOptions } from '../parse-options'
import { runSubcommand } from '../subcommands'
import { forget } from './models-forget'
import { pull, quants, rm, search } from './models-library'

const HELP = `Usage: svc models <subcommand>

  svc models [ls] [--all]             the models this machine can run: curated, pulled (URL or Hub)
                                      and local files, whether each is on disk, and which slot holds
                                      it. --all: every model svc knows, with why the others cannot
                                      run here (no NPU, too little memory, no slot for its kind)
  svc models search <words> [--limit N]
                                      search the Hugging Face Hub's GGUF repos, most downloaded first
  svc models quants <owner>/<repo> [--slot S]
                                      a repo's quants: the name to pull, size, memory needed, and
                                      whether it fits the slot's memory budget here (default primary)
  svc models pull <name>              download without loading, with progress; Ctrl-C cancels (the
                                      partial file stays: a later pull resumes it). <name>: a Hub name
                                      (hf.co/<owner>/<repo>:<quant>, hf:<owner>/<repo>), a curated id,
                                      a registry ref or an http(s) URL
  svc models rm <id>                  delete a model's downloaded files (refused while a slot holds
                                      it; a local file svc did not download is never deleted)
  svc models forget <id>              drop a ref from every list: a local file's ref goes and the
                                      file stays; a pulled ref goes with its download (refused while
                                      a slot holds it, and for curated ids)

Every subcommand takes --url URL: the API to talk to (else SVC_API_URL, default http://127.0.0.1:8080).
The Hub is HF_ENDPOINT (default https://huggingface.co) with HF_TOKEN for gated and private repos,
as the API server reads them. Exit status: 0 on success, 1 with the error, 130 when a pull was
cancelled.`

export const modelsCommand: Command = {
  name: 'models',
  summary: 'list, search, pull and delete models',
  help: HELP,
  api: true,
  run: (args, ctx) =>
    args.length === 0 || args[0]?.startsWith('-') ? list(args, ctx) : subcommands(args, ctx),
}

const subcommands = runSubcommand('svc models', HELP, { ls: list, list, search, quants, pull, rm, forget })

/**
 * `svc models [ls] [--all]`: the models the API offers on this machine (`offered`, decided by the API
 * for every face alike); `--all` adds the others with the API's `reason`. SIZE is the API's `size`:
 * all of a model's files (a vision model's projector included).
 */
async function list(args: string[], ctx: CliContext): Promise<number> {
  const usage = 'usage: svc models ls [--all]'
  const { values } = parseOptions(
    'svc models ls',
    usage,
    args,
    { all: { type: 'boolean' } },
    { positionals: false },
  )
  const res = await callApi<{ models: ModelView[] }>(ctx, '/api/models')
  if (res.status !== 200) throw apiError(res)
  const all = values.all ?? false
  const shown = res.body.models.filter((m) => all || m.offered !== false)
  const hidden = res.body.models.length - shown.length
  ctx.stdout.write(
    table(
      [
        'ID',
        'PROVIDER',
        'ROLE',
        'SOURCE',
        'ON DISK',
        'SIZE',
        'SLOT',
        'BADGE',
        'CAPABILITIES',
        ...(all ? ['RUNS HERE'] : []),
      ],
      shown.map((m) => [
        m.id,
        m.provider,
        m.role,
        m.source,
        m.present ? 'yes' : 'no',
        bytes(m.size),
        m.slot,
        m.badge,
        (m.capabilities ?? []).join(','),
        ...(all ? [m.offered === false ? `no: ${m.reason ?? 'unknown'}` : 'yes'] : []),
      ]),
    ),
  )
  if (hidden > 0)
    ctx.stdout.write(
      `\n${hidden} more model${hidden === 1 ? '' : 's'} cannot run on this machine; svc models ls --all lists them with the reason\n`,
    )
  return 0
}
