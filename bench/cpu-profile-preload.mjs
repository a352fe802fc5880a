// Loaded with `node --import` by bench/profile.ts (NODE_OPTIONS may not carry --cpu-prof): profiles
// the whole process with V8's sampling profiler and writes `<BENCH_PROFILE_DIR>/svc.cpuprofile` when
// it exits. The inspector session's messages run synchronously, so an 'exit' listener can stop it.
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector'
import { join } from 'node:path'

const dir = process.env.BENCH_PROFILE_DIR
if (dir) {
  const session = new Session()
  session.connect()
  session.post('Profiler.enable')
  session.post('Profiler.start')
  process.on('exit', () => {
    session.post('Profiler.stop', (error, result) => {
      if (!error) writeFileSync(join(dir, 'svc.cpuprofile'), JSON.stringify(result.profile))
    })
  })
}
