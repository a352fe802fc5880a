import { describe, expect, it } from 'vitest'
import { summary } from './finding'
import { type SlotVerdict, slotFinding } from './slots-check'

const img = (enabled: boolean, backends = [{ backend: 'rocm', ok: false }]): SlotVerdict => ({
  name: 'img',
  provider: 'image',
  backend: 'rocm',
  runtime: null,
  enabled,
  runnable: { ok: false, reason: 'cannot use rocm here: no /dev/kfd', backends },
})

describe('slotFinding', () => {
  it('fails an enabled slot that cannot run (the API loads it at start), with the backend that runs here', () => {
    const f = slotFinding(
      img(true, [
        { backend: 'rocm', ok: false },
        { backend: 'cpu', ok: true },
      ]),
      '/etc/svc',
    )
    expect(f.mark).toBe('fail')
    expect(f.text).toBe('slot img (image, rocm): cannot run here: cannot use rocm here: no /dev/kfd')
    expect(f.fix).toBe(
      'set backend = "cpu" in /etc/svc/slots/img.toml (or in the dashboard: the slot\'s settings)',
    )
  })

  it('only notes a disabled slot that cannot run, and says so in the fix', () => {
    const f = slotFinding(img(false), '/etc/svc')
    expect(f.mark).toBe('warn')
    expect(f.fix).toMatch(/runtime = "remote".*; while it stays disabled nothing tries to load it$/)
  })

  it('passes a slot that can run, and one the API gave no verdict for', () => {
    const ok = { ...img(true), runnable: { ok: true, reason: null, backends: [] } }
    expect(slotFinding(ok, '/etc/svc')).toEqual({ mark: 'ok', text: 'slot img (image, rocm): can run here' })
    expect(slotFinding({ ...img(true), runnable: null }, '/etc/svc').mark).toBe('ok')
  })
})

describe('summary', () => {
  it('counts what blocks svc and what is only worth knowing', () => {
    expect(summary([{ mark: 'ok', text: 'a' }])).toBe('Nothing blocks svc here.\n')
    expect(
      summary([
        { mark: 'warn', text: 'a' },
        { mark: 'fail', text: 'b' },
      ]),
    ).toBe('1 problem (✗) blocks svc: fix it and run svc doctor again (1 note marked ! above).\n')
  })
})
