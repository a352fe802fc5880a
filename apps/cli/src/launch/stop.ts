/**
 * `svc stop` (what `pnpm stop` runs): SIGTERM to what `svc start` started, then waits for each to
 * exit: the API drains requests and stops its upstreams first (SVC_DRAIN_SECONDS, SVC_UNLOAD_GRACE),
 * so the wait is generous; whatever is still there after it gets SIGKILL.
 */
import type { CliContext } from '../context'
import { isRunning, serviceFiles } from './service-files'

const STOP_TIMEOUT_MS = 90_000

export async function stopStarted(ctx: CliContext): Promise<number> {
  const files = serviceFiles(ctx.env)
  const running = files.read().filter(isRunning)
  if (running.length === 0) {
    ctx.stdout.write('svc is not running (nothing started by svc start)\n')
    await files.write([])
    return 0
  }
  for (const s of running) process.kill(s.pid, 'SIGTERM')
  const deadline = Date.now() + STOP_TIMEOUT_MS
  while (running.some(isRunning) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
  let code = 0
  for (const s of running.filter(isRunning)) {
    process.kill(s.pid, 'SIGKILL')
    ctx.stderr.write(`svc: ${s.app} (pid ${s.pid}) did not stop within ${STOP_TIMEOUT_MS / 1000} s: killed\n`)
    code = 1
  }
  await files.write([])
  ctx.stdout.write(`svc stopped (${running.map((s) => `${s.app} pid ${s.pid}`).join(', ')})\n`)
  return code
}
