import { readFile } from 'node:fs/promises'
import { defaultImagesManifestPath, parseImageManifest, pinManifest } from '@svc/providers/manifest'
import { type CliContext, CliError, type Command } from '../context'
import { cliVar } from '../env-variables'

const HELP = `Usage: svc manifest <pin|ls> [entry…] [--file path]

The container images svc runs are listed in manifests/images.toml and run only by digest.

  svc manifest pin [entry…]   resolve each entry's tag to its digest (Registry HTTP API v2; local
                              builds: their image id from the container engine) and rewrite the
                              digest lines of the file, keeping its comments. Default: every entry.
                              Entries that cannot be resolved are reported and left unchanged; the
                              exit code is 1 if any requested entry failed.
  svc manifest ls             list the entries and whether each is pinned

Options:
  --file <path>   the manifest (default: SVC_IMAGES_MANIFEST, else manifests/images.toml)`

export const manifestCommand: Command = {
  name: 'manifest',
  summary: 'pin container images by digest (manifests/images.toml)',
  help: HELP,
  async run(args, ctx) {
    const { sub, names, file } = parseArgs(args, ctx)
    if (sub === 'ls') return list(file, names, ctx)
    return pin(file, names, ctx)
  },
}

function parseArgs(args: string[], ctx: CliContext) {
  const [sub, ...rest] = args
  if (sub !== 'pin' && sub !== 'ls') {
    throw new CliError(sub ? `unknown subcommand "manifest ${sub}"\n\n${HELP}` : HELP, 2)
  }
  let file = cliVar(ctx.env, 'SVC_IMAGES_MANIFEST') || defaultImagesManifestPath()
  const names: string[] = []
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] as string
    if (arg === '--file' || arg.startsWith('--file=')) {
      const value = arg === '--file' ? rest[++i] : arg.slice('--file='.length)
      if (!value) throw new CliError('--file needs a path', 2)
      file = value
    } else if (arg.startsWith('-')) {
      throw new CliError(`unknown option "${arg}"`, 2)
    } else {
      names.push(arg)
    }
  }
  return { sub, names, file }
}

async function pin(file: string, names: string[], ctx: CliContext): Promise<number> {
  let report: Awaited<ReturnType<typeof pinManifest>>
  try {
    report = await pinManifest({ file, names })
  } catch (error) {
    throw new CliError((error as Error).message)
  }
  const width = Math.max(...report.results.map((r) => r.name.length))
  for (const r of report.results) {
    const name = r.name.padEnd(width)
    if (!r.ok) ctx.stderr.write(`failed    ${name}  ${r.error}\n`)
    else ctx.stdout.write(`${r.changed ? 'pinned   ' : 'unchanged'} ${name}  ${r.digest}\n`)
  }
  const failed = report.results.filter((r) => !r.ok).length
  const changed = report.results.filter((r) => r.changed).length
  if (report.written)
    ctx.stdout.write(`wrote ${file} (${changed} digest${changed === 1 ? '' : 's'} changed)\n`)
  if (failed > 0) {
    ctx.stderr.write(
      `svc: ${failed} of ${report.results.length} entries could not be pinned; left unchanged\n`,
    )
    return 1
  }
  return 0
}

async function list(file: string, names: string[], ctx: CliContext): Promise<number> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`)
  }
  const parsed = parseImageManifest(text, file)
  if (!parsed.ok) throw new CliError(parsed.error)
  const entries = Object.entries(parsed.manifest.entries).filter(([n]) => !names.length || names.includes(n))
  const width = Math.max(4, ...entries.map(([n]) => n.length))
  for (const [name, e] of entries) {
    const where = `${e.repository}:${e.tag}`
    const state = e.digest ? e.digest.slice(0, 19) : 'NOT PINNED'
    ctx.stdout.write(
      `${name.padEnd(width)}  ${`${e.provider}/${e.backend ?? '-'}`.padEnd(12)}  ${state.padEnd(19)}  ${where}\n`,
    )
  }
  return 0
}
