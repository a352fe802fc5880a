/**
 * `svc doctor containers [--remove-orphans]`: names what svc instances left on the container engine,
 * and removes the orphans on request. Automatic clean-up would have to guess whether another install
 * is alive; this never does.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { resolvePaths } from '@svc/core/node'
import { findLeftovers, type Leftover, removeLeftover } from '@svc/providers/internals'
import { type CliContext, CliError } from '../context'
import { table } from '../format'
import { parseOptions } from '../parse-options'

export const CONTAINERS_HELP = `  svc doctor containers [--remove-orphans]
      Lists every container and Docker Swarm service an svc made on this Docker engine (DOCKER_HOST),
      with what will take care of it:
        running   an svc runs on the state dir that made it
        stopped   no svc runs on that state dir now; its next start adopts or removes it
        orphan    its state dir is gone or holds another instance id: nothing will ever take it back
        unknown   made on another host, or by an older svc: check by hand (docker rm -f / docker service rm)
      svc removes only its own instance's upstreams when it starts, never another install's, so a
      dead instance's leftovers stay until you remove them:
        --remove-orphans   remove the ones marked orphan (nothing else; also: svc doctor --remove-orphans)`

export async function doctorContainers(args: string[], ctx: CliContext): Promise<number> {
  const { values } = parseOptions(
    'svc doctor containers',
    'usage: svc doctor containers [--remove-orphans]',
    args,
    { 'remove-orphans': { type: 'boolean' } },
    { positionals: false },
  )
  const { stateDir } = resolvePaths(ctx.env)
  const mine = (await readFile(join(stateDir, 'instance-id'), 'utf8').catch(() => '')).trim()
  ctx.stdout.write(`this svc: state dir ${stateDir}, instance ${mine || '(none yet)'}\n`)
  let found: Leftover[]
  try {
    found = await findLeftovers()
  } catch (error) {
    throw new CliError(`the container engine did not answer: ${(error as Error).message}`)
  }
  if (found.length === 0) {
    ctx.stdout.write('no svc containers or services on this engine\n')
    return 0
  }
  const rows = found.map((l) => [
    l.kind,
    l.name,
    l.instance === mine ? `${l.instance} (this)` : l.instance || '-',
    l.slot || '-',
    l.state,
    l.verdict,
    l.reason,
  ])
  ctx.stdout.write(`${table(['KIND', 'NAME', 'INSTANCE', 'SLOT', 'STATE', 'VERDICT', 'WHY'], rows)}\n`)
  const orphans = found.filter((l) => l.verdict === 'orphan')
  if (!values['remove-orphans']) {
    if (orphans.length)
      ctx.stdout.write(
        `${orphans.length} orphan(s): remove them with svc doctor containers --remove-orphans\n`,
      )
    return 0
  }
  for (const orphan of orphans) {
    await removeLeftover(orphan)
    ctx.stdout.write(`removed ${orphan.kind} ${orphan.name}\n`)
  }
  if (orphans.length === 0) ctx.stdout.write('no orphans to remove\n')
  return 0
}
