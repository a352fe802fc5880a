/**
 * A swarm service's tasks as svc reads them: which phase the service is in (the slot's `pulling` is
 * the tasks' new → pending → assigned → accepted → preparing, where a node pulls the image;
 * `starting` is ready → starting → running), and where each running replica answers: the address
 * of its node and the host port its task published.
 */
import type { UpstreamMember } from '@svc/core'
import type Docker from 'dockerode'

export interface SwarmTask {
  id: string
  state: string
  desired: string
  /** What the orchestrator says about it ("no suitable node …", "No such image: …"). */
  message: string
  error: string | null
  nodeId: string | null
  publishedPort: number | null
  updatedAt: string
}

const PULLING = ['new', 'pending', 'assigned', 'accepted', 'preparing']
const STARTING = ['ready', 'starting']
const FAILED = ['failed', 'rejected']

export type ServicePhase =
  | { phase: 'pulling' | 'starting'; detail: string }
  | { phase: 'running'; running: number }
  | { phase: 'failed'; error: string }

interface RawTask {
  ID?: string
  DesiredState?: string
  UpdatedAt?: string
  NodeID?: string
  Status?: {
    State?: string
    Message?: string
    Err?: string
    PortStatus?: { Ports?: { TargetPort?: number; PublishedPort?: number }[] }
  }
}

export async function serviceTasks(docker: Docker, service: string, port: number): Promise<SwarmTask[]> {
  const raw = (await docker.listTasks({ filters: { service: [service] } })) as RawTask[]
  return raw.map((t) => ({
    id: t.ID ?? '',
    state: t.Status?.State ?? 'unknown',
    desired: t.DesiredState ?? 'unknown',
    message: t.Status?.Message ?? '',
    error: t.Status?.Err || null,
    nodeId: t.NodeID ?? null,
    publishedPort: t.Status?.PortStatus?.Ports?.find((p) => p.TargetPort === port)?.PublishedPort ?? null,
    updatedAt: t.UpdatedAt ?? '',
  }))
}

/**
 * Where the service stands: running once a task runs; failed when a task failed or was rejected
 * before any ran (a bad image, a command that exits); else the furthest phase a task reached.
 */
export function servicePhase(tasks: readonly SwarmTask[]): ServicePhase {
  const live = tasks.filter((t) => t.desired === 'running' || FAILED.includes(t.state))
  const running = live.filter((t) => t.state === 'running').length
  if (running > 0) return { phase: 'running', running }
  const failed = live
    .filter((t) => FAILED.includes(t.state))
    .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))[0]
  if (failed) return { phase: 'failed', error: `task ${failed.state}: ${failed.error ?? failed.message}` }
  const starting = live.find((t) => STARTING.includes(t.state))
  if (starting) return { phase: 'starting', detail: starting.message }
  const pulling = live.find((t) => PULLING.includes(t.state))
  // A task the scheduler cannot place says why in `Err` ("no suitable node (…)"), not in its message.
  return {
    phase: 'pulling',
    detail: pulling ? `${pulling.state}: ${pulling.error ?? pulling.message}` : 'no task yet',
  }
}

/** The address each node is reached at (its advertised address), and its hostname. */
export async function nodeAddresses(
  docker: Docker,
): Promise<Map<string, { addr: string; hostname: string }>> {
  const nodes = (await docker.listNodes()) as {
    ID?: string
    Description?: { Hostname?: string }
    Status?: { Addr?: string }
    ManagerStatus?: { Addr?: string }
  }[]
  const out = new Map<string, { addr: string; hostname: string }>()
  for (const n of nodes) {
    // A manager sometimes reports 0.0.0.0 as its status address; its raft address names the host.
    const status = n.Status?.Addr
    const addr = status && status !== '0.0.0.0' ? status : (n.ManagerStatus?.Addr?.replace(/:\d+$/, '') ?? '')
    if (n.ID && addr) out.set(n.ID, { addr, hostname: n.Description?.Hostname ?? n.ID.slice(0, 12) })
  }
  return out
}

/** The running replicas, each at `<node address>:<published port>`; the id is the task's. */
export async function runningMembers(
  docker: Docker,
  service: string,
  port: number,
): Promise<UpstreamMember[]> {
  const [tasks, nodes] = await Promise.all([serviceTasks(docker, service, port), nodeAddresses(docker)])
  return tasks.flatMap((t) => {
    const node = t.nodeId ? nodes.get(t.nodeId) : undefined
    if (t.state !== 'running' || t.desired !== 'running' || !t.publishedPort || !node) return []
    const host = node.addr.includes(':') ? `[${node.addr}]` : node.addr
    return [
      { id: t.id.slice(0, 12), base: new URL(`http://${host}:${t.publishedPort}`), node: node.hostname },
    ]
  })
}
