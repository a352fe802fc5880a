/**
 * What `svc doctor` reports: every container and Swarm service any svc made on this engine
 * (`svc.managed=true`), each judged by whether anything will ever take care of it. `recover` only
 * touches its own instance's upstreams, so what a dead instance left (a removed test state dir, an
 * install whose instance id was regenerated) stays until someone asks: this names it, and
 * `removeLeftover` removes one on request.
 */
import { readFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { join } from 'node:path'
import Docker from 'dockerode'
import { removeContainer } from './container-handle'
import { LABELS } from './container-spec'
import { liveRuns } from './live-runs'
import { removeService, serviceContainersGone } from './swarm-handle'

/**
 * - `running`: an svc runs on the state dir that made it (it adopts or removes it when it restarts alone);
 * - `stopped`: its state dir is there but no svc runs on it (its next start adopts or removes it);
 * - `orphan`: its state dir is gone, or holds another instance id now: nothing will ever take it back;
 * - `unknown`: made on another host, or by an svc that did not label its state dir: cannot be told.
 */
export type LeftoverVerdict = 'running' | 'stopped' | 'orphan' | 'unknown'

export interface Leftover {
  kind: 'container' | 'service'
  id: string
  name: string
  instance: string
  slot: string
  model: string
  /** The container's state (`running`, `exited`, …) or the service's replicas (`replicas 1`). */
  state: string
  verdict: LeftoverVerdict
  /** Why, for people. */
  reason: string
}

/** The judgement of one upstream's labels; reads the state dir its `svc.home` names. Never throws. */
export async function judgeLeftover(
  labels: Readonly<Record<string, string>>,
  host = hostname(),
): Promise<{ verdict: LeftoverVerdict; reason: string }> {
  const home = labels[LABELS.home]
  if (!home) return { verdict: 'unknown', reason: 'made by an svc that did not record its state dir' }
  const at = home.indexOf(':')
  const [madeOn, dir] = [home.slice(0, at), home.slice(at + 1)]
  if (madeOn !== host) return { verdict: 'unknown', reason: `made by the svc on host ${madeOn}` }
  let id: string
  try {
    id = (await readFile(join(dir, 'instance-id'), 'utf8')).trim()
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return { verdict: 'orphan', reason: `its state dir ${dir} is gone` }
    return { verdict: 'unknown', reason: `cannot read ${dir}/instance-id (${code})` }
  }
  if (id !== labels[LABELS.instance])
    return { verdict: 'orphan', reason: `${dir} belongs to instance ${id} now` }
  const live = await liveRuns(dir, { prune: false })
  if (live.length) return { verdict: 'running', reason: `svc runs on ${dir} (pid ${live.join(', ')})` }
  return { verdict: 'stopped', reason: `no svc runs on ${dir}; its next start adopts or removes it` }
}

/** Every svc container and (on a swarm manager) Swarm service on the engine. Throws when the engine does not answer. */
export async function findLeftovers(docker: Docker = new Docker()): Promise<Leftover[]> {
  const filters = { label: [`${LABELS.managed}=true`] }
  const out: Leftover[] = []
  for (const c of await docker.listContainers({ all: true, filters })) {
    const labels = c.Labels ?? {}
    out.push({
      kind: 'container',
      id: c.Id,
      name: (c.Names?.[0] ?? c.Id).replace(/^\//, ''),
      ...described(labels),
      state: c.State,
      ...(await judgeLeftover(labels)),
    })
  }
  // Not a swarm manager: the engine refuses the listing, and there are no services to judge.
  const services = (await docker.listServices({ filters }).catch(() => [])) as {
    ID: string
    Spec?: { Name?: string; Labels?: Record<string, string>; Mode?: { Replicated?: { Replicas?: number } } }
  }[]
  for (const s of services) {
    const labels = s.Spec?.Labels ?? {}
    out.push({
      kind: 'service',
      id: s.ID,
      name: s.Spec?.Name ?? s.ID,
      ...described(labels),
      state: `replicas ${s.Spec?.Mode?.Replicated?.Replicas ?? '?'}`,
      ...(await judgeLeftover(labels)),
    })
  }
  return out
}

/** Removes one container (forced) or service (and waits, bounded, for its task containers). */
export async function removeLeftover(leftover: Leftover, docker: Docker = new Docker()): Promise<void> {
  if (leftover.kind === 'container') return removeContainer(docker, leftover.id)
  await removeService(docker, leftover.id)
  await serviceContainersGone(docker, leftover.name, 15_000)
}

function described(labels: Readonly<Record<string, string>>) {
  return {
    instance: labels[LABELS.instance] ?? '',
    slot: labels[LABELS.slot] ?? '',
    model: labels[LABELS.model] ?? '',
  }
}
