import { apiError, callApi } from '../api-client'
import type { ModelView } from '../api-types'
import type { CliContext, Command } from '../context'
import { bytes, table } from '../format'
import { runSubcommand } from '../subcommands'
import { forget } from './models-forget'
import { pull, quants, rm, search } from './models-library'

const HELP = `Usage: svc models <subcommand>

  svc models [ls]                     every model svc knows: curated, pulled (URL or Hub) and local
                                      files, whether each is on disk, and which slot holds it
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

The Hub is HF_ENDPOINT (default https://huggingface.co) with HF_TOKEN for gated and private repos,
as the API server reads them. Exit status: 0 on success, 1 with the error, 130 when a pull was
cancelled.`

export const modelsCommand: Command = {
  name: 'models',
  summary: 'list, search, pull and delete models',
  help: HELP,
  run: (args, ctx) => (args.length === 0 ? list(args, ctx) : subcommands(args, ctx)),
}

const subcommands = runSubcommand(HELP, { ls: list, list, search, quants, pull, rm, forget })

async function list(args: string[], ctx: CliContext): Promise<number> {
  if (args.length > 0) {
    ctx.stderr.write('usage: svc models ls\n')
    return 2
  }
  const res = await callApi<{ models: ModelView[] }>(ctx, '/api/models')
  if (res.status !== 200) throw apiError(res)
  ctx.stdout.write(
    table(
      ['ID', 'PROVIDER', 'ROLE', 'SOURCE', 'ON DISK', 'SIZE', 'SLOT', 'BADGE', 'CAPABILITIES'],
      res.body.models.map((m) => [
        m.id,
        m.provider,
        m.role,
        m.source,
        m.present ? 'yes' : 'no',
        // A vision model is two files; its size is both.
        bytes(m.size === null ? null : m.size + (m.mmproj?.size ?? 0)),
        m.slot,
        m.badge,
        (m.capabilities ?? []).join(','),
      ]),
    ),
  )
  return 0
}
