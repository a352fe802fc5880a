#!/usr/bin/env node
// `pnpm bench`'s multi-process experiment: N copies of the built API sharing one port through
// node:cluster. Usage: node cluster-svc.mjs <workers> <apps/api/dist/serve.js>. Prints "all workers
// ready" once every worker listens; SIGTERM stops them all (each drains as svc does).
import cluster from 'node:cluster'

const [workers, entry] = [Number(process.argv[2]), process.argv[3]]
if (cluster.isPrimary) {
  cluster.setupPrimary({
    exec: new URL(import.meta.url).pathname,
    args: [String(workers), entry],
    silent: false,
  })
  let ready = 0
  for (let i = 0; i < workers; i++) {
    cluster.fork().on('listening', () => {
      if (++ready === workers) process.stderr.write('all workers ready\n')
    })
  }
  let stopping = false
  const stop = () => {
    stopping = true
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM')
  }
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
  cluster.on('exit', () => {
    if (!stopping) stop()
    if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0)
  })
} else {
  await import(entry)
}
