/**
 * When a starting upstream's port is its own and open: what ends `starting` in the process runtime.
 */
import { connect } from 'node:net'
import type { UpstreamHandle } from '@svc/core'
import { listensOn } from './port-owner'

/**
 * How long a port that another process holds may stay "not the upstream's" before it is taken as the
 * upstream's anyway: a wrapper whose child listens, where /proc cannot tell (the upstreams svc starts
 * listen themselves, so they never wait for it).
 */
const FOREIGN_WAIT_MS = 3_000

/**
 * Waits until the upstream accepts TCP connections on its port, exits, the load is cancelled, or
 * `deadlineMs` passes (then the slot's warm-up deadline takes over). `starting` lasts until then.
 * `listening` (its own log line that it has bound its port) ends the wait at once: the port is its.
 */
export async function portOpenOrExit(
  handle: UpstreamHandle,
  signal: AbortSignal,
  deadlineMs: number,
  listening?: Promise<void>,
): Promise<'open' | 'exited' | 'aborted' | 'deadline'> {
  let exited = false
  let said = false
  void handle.exited.then(() => {
    exited = true
  })
  void listening?.then(() => {
    said = true
  })
  const started = Date.now()
  const deadline = started + deadlineMs
  let foreignSince: number | undefined
  // Short first waits, growing by half (as the warm-up's probes): a small model's engine binds its
  // port tens of ms after it starts, and 20 ms doubling to 250 ms overshot that by up to the time
  // already waited (137 ms of a 281 ms swap in the bench's switch section). A refused connect to a
  // loopback port costs microseconds, so polling often early is cheap.
  // An upstream that will print its listening line is checked only as the fallback: from 100 ms.
  let delay = listening ? 100 : 5
  // …and its line, or its exit, ends the wait at once.
  const early = listening && Promise.race([listening, handle.exited.then(() => undefined)])
  // Reading whose the port is costs a few ms of /proc on a busy box: the line, when it comes, wins.
  const owned = (pid: number) =>
    listening
      ? Promise.race([listensOn(pid, Number(handle.base.port)), listening.then(() => true)])
      : listensOn(pid, Number(handle.base.port))
  while (Date.now() < deadline) {
    if (signal.aborted) return 'aborted'
    if (exited) return 'exited'
    if (said) return 'open'
    if (await canConnect(handle.base)) {
      const pid = handle.describe().pid
      if (typeof pid === 'number' && (await owned(pid))) {
        return exited ? 'exited' : 'open'
      }
      // Someone else holds the port (we lost the race for it): our upstream dies of a bind error when
      // it binds, which an engine that loads its model first (whisper-server) does only after that
      // load. Keep watching for its own socket or its exit, for a while: then the port is taken as
      // the upstream's (a wrapper whose child listens, where /proc cannot tell).
      foreignSince ??= Date.now()
      if (Date.now() - foreignSince >= FOREIGN_WAIT_MS) return exited ? 'exited' : 'open'
    }
    await pause(delay, early || undefined)
    delay = Math.min(delay * 1.5, 250)
  }
  return 'deadline'
}

/** `ms`, or less when `early` settles first. */
function pause(ms: number, early: Promise<void> | undefined): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined
  const slept = new Promise((r) => {
    timer = setTimeout(r, ms)
  })
  if (!early) return slept
  return Promise.race([slept, early]).finally(() => clearTimeout(timer))
}

function canConnect(base: URL): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: base.hostname, port: Number(base.port) })
    socket.setTimeout(1_000)
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
    socket.once('timeout', () => {
      socket.destroy()
      resolve(false)
    })
  })
}
