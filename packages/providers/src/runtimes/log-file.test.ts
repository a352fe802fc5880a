import { appendFileSync, closeSync } from 'node:fs'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { LogFile } from './log-file'

/** Whether `p` settles within `ms`: short where it must not, generous where it must (a loaded box). */
const settled = (p: Promise<void>, ms = 300) =>
  Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))])

/** A new slot log in a folder of its own, its write descriptor closed (the test appends by path). */
async function freshLog() {
  const path = join(await mkdtemp(join(tmpdir(), 'svc-log-')), 'slot.log')
  const { log, fd } = await LogFile.create(path)
  closeSync(fd)
  return { path, log }
}

describe('LogFile.sees', () => {
  it('resolves on a line written in pieces, seen through the file watch without a poll', async () => {
    const { path, log } = await freshLog()
    const seen = log.sees(/\bmodel loaded\b/)
    appendFileSync(path, 'srv  load_model: loading model\nsrv  llama_server: model lo')
    expect(await settled(seen)).toBe(false) // half a line is not the line
    appendFileSync(path, 'aded\n')
    expect(await settled(seen, 5_000)).toBe(true)
    expect(log.ring.snapshot()).toContain('srv  llama_server: model loaded')
    log.stop()
  })

  it('never settles for a line that does not come, and lets go of its waiters on stop', async () => {
    const { path, log } = await freshLog()
    const seen = log.sees(/\bmodel loaded\b/)
    appendFileSync(path, "srv  load_model: failed to load model '/m.gguf'\n")
    expect(await settled(seen)).toBe(false)
    log.stopWaiting()
    appendFileSync(path, 'srv  llama_server: model loaded\n')
    log.poll()
    expect(await settled(seen)).toBe(false) // dropped: the line, once it comes, is only logged
    expect(log.ring.snapshot()).toContain('srv  llama_server: model loaded')
    log.stop()
  })
})
