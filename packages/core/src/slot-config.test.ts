import { describe, expect, it } from 'vitest'
import { defaultSlotConfig, parseSlotConfig, stringifySlotConfig } from './slot-config'

describe('slot config', () => {
  it('applies the built-in defaults per slot', () => {
    expect(defaultSlotConfig('img')).toMatchObject({ provider: 'image', backend: 'rocm', enabled: false })
    expect(defaultSlotConfig('primary')).toMatchObject({
      provider: 'llm',
      role: 'chat',
      restart: 'on-failure',
    })
    expect(defaultSlotConfig('embed')).toMatchObject({ provider: 'llm', role: 'embed' })
    expect(defaultSlotConfig('embed')?.backend).toBeUndefined()
    expect(defaultSlotConfig('mine')).toBeUndefined()
  })

  it('reads the example of docs/configuration.md', () => {
    const r = parseSlotConfig(
      'primary',
      'enabled = true\nbackend = "vulkan"\n[model]\ndefault = "qwen3-0.6b-q8_0"\n',
    )
    expect(r).toEqual({
      ok: true,
      config: expect.objectContaining({
        name: 'primary',
        enabled: true,
        backend: 'vulkan',
        provider: 'llm',
        model: { default: 'qwen3-0.6b-q8_0' },
      }),
    })
  })

  it('reads a projector beside the default model, and round-trips it', () => {
    const text = 'enabled = true\n[model]\ndefault = "/m/vl.gguf"\nmmproj = "/m/mmproj.gguf"\n'
    const r = parseSlotConfig('primary', text)
    expect(r.ok && r.config.model).toEqual({ default: '/m/vl.gguf', mmproj: '/m/mmproj.gguf' })
    if (!r.ok) return
    const again = parseSlotConfig('primary', stringifySlotConfig(r.config))
    expect(again.ok && again.config.model).toEqual({ default: '/m/vl.gguf', mmproj: '/m/mmproj.gguf' })
  })

  it('refuses a projector without its model, or on a slot that is not llm', () => {
    const alone = parseSlotConfig('primary', '[model]\nmmproj = "/m/mmproj.gguf"\n')
    expect(!alone.ok && alone.error.field).toBe('model.mmproj')
    const tts = parseSlotConfig('tts', '[model]\ndefault = "espeak-ng"\nmmproj = "/m/p.gguf"\n')
    expect(!tts.ok && tts.error.message).toMatch(/llm provider/)
  })

  it('requires provider for a custom slot', () => {
    const r = parseSlotConfig('rerank', 'enabled = true\n')
    expect(r.ok).toBe(false)
    if (r.ok) return
    expect(r.error.field).toBe('provider')
    expect(r.error.message).toContain('slots/rerank.toml')
    expect(r.error.message).toContain('provider')
  })

  it('names the file, the field and the expected values for a wrong enum', () => {
    const r = parseSlotConfig('primary', 'backend = "metal"\n', '/etc/svc/slots/primary.toml')
    expect(r.ok).toBe(false)
    if (r.ok) return
    expect(r.error).toMatchObject({ file: '/etc/svc/slots/primary.toml', field: 'backend' })
    expect(r.error.message).toMatch(
      /\/etc\/svc\/slots\/primary\.toml: field "backend": expected .*"vulkan".*"rocm"/,
    )
    expect(r.error.message).toContain('"metal"')
  })

  it('names a nested field with its dotted path', () => {
    const r = parseSlotConfig('primary', '[model]\ndefault = 42\n')
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.error.field).toBe('model.default')
  })

  it('refuses unknown keys instead of ignoring a typo', () => {
    const r = parseSlotConfig('primary', 'backnd = "rocm"\n')
    expect(r.ok).toBe(false)
    if (!r.ok) {
      expect(r.error.field).toBe('backnd')
      expect(r.error.message).toContain('unknown field')
    }
  })

  it('reports a TOML syntax error with its line and never throws', () => {
    const r = parseSlotConfig('primary', 'enabled = true\nbackend = \n')
    expect(r.ok).toBe(false)
    if (!r.ok) {
      expect(r.error.field).toBeNull()
      expect(r.error.message).toMatch(/slots\/primary\.toml: not valid TOML \(line 2/)
    }
  })

  it('needs url for a remote runtime and refuses url otherwise', () => {
    const a = parseSlotConfig('img', 'runtime = "remote"\n')
    expect(a.ok || a.error.field).toBe('url')
    const b = parseSlotConfig('img', 'url = "http://10.0.0.5:8188"\n')
    expect(b.ok || b.error.field).toBe('url')
    const c = parseSlotConfig('img', 'runtime = "remote"\nurl = "http://10.0.0.5:8188"\n')
    expect(c.ok && c.config.url).toBe('http://10.0.0.5:8188')
    const d = parseSlotConfig('img', 'runtime = "remote"\nurl = "file:///etc/passwd"\n')
    expect(d.ok || d.error.field).toBe('url')
  })

  it.each([
    [
      'a model table and args',
      'provider = "llm"\nrole = "rerank"\nargs = ["-t", "2"]\n[model]\ndefault = "x"\n',
    ],
    [
      'the scale-out fields',
      'provider = "llm"\nruntime = "swarm"\nreplicas = 3\nconstraints = ["node.role!=manager"]\nevict = "idle"\nmodel = "x"\n',
    ],
  ])('round-trips %s through stringify', (_, toml) => {
    const r = parseSlotConfig('mine', toml)
    expect(r.ok).toBe(true)
    if (!r.ok) return
    expect(parseSlotConfig('mine', stringifySlotConfig(r.config))).toEqual(r)
  })

  it('takes replicas of a remote slot as urls, never together with url', () => {
    const ok = parseSlotConfig('primary', 'runtime = "remote"\nurls = ["http://a:8080", "http://b:8080"]\n')
    expect(ok.ok && ok.config.urls).toEqual(['http://a:8080', 'http://b:8080'])
    const both = parseSlotConfig('primary', 'runtime = "remote"\nurl = "http://a:1"\nurls = ["http://b:1"]\n')
    expect(both.ok || both.error.message).toContain('either url or urls')
    const local = parseSlotConfig('primary', 'urls = ["http://a:1"]\n')
    expect(local.ok || local.error.field).toBe('urls')
  })

  it('takes replicas and constraints only for a swarm slot', () => {
    const swarm = parseSlotConfig(
      'primary',
      'runtime = "swarm"\nreplicas = 2\nconstraints = ["node.labels.svc.gpu==rocm"]\n',
    )
    expect(swarm.ok && [swarm.config.replicas, swarm.config.constraints]).toEqual([
      2,
      ['node.labels.svc.gpu==rocm'],
    ])
    const remote = parseSlotConfig('primary', 'runtime = "remote"\nurl = "http://a:1"\nreplicas = 2\n')
    expect(remote.ok || remote.error.message).toContain('a remote slot lists its replicas in urls')
    const bad = parseSlotConfig('primary', 'runtime = "swarm"\nconstraints = ["gpu"]\n')
    expect(bad.ok || bad.error.field).toBe('constraints.0')
    const many = parseSlotConfig('primary', 'runtime = "swarm"\nreplicas = 33\n')
    expect(many.ok || many.error.field).toBe('replicas')
  })

  it('reads evict (default never) and model as a plain string', () => {
    const r = parseSlotConfig('embed', 'evict = "idle"\nmodel = "nomic"\n')
    expect(r.ok && [r.config.evict, r.config.model]).toEqual(['idle', { default: 'nomic' }])
    expect(defaultSlotConfig('embed')?.evict).toBe('never')
    const wrong = parseSlotConfig('embed', 'evict = "busy"\n')
    expect(wrong.ok || wrong.error.field).toBe('evict')
  })

  it('takes model.sha256 with a URL default only, as 64 hex digits, and keeps it through stringify', () => {
    const hex = 'AB'.repeat(32)
    const ok = parseSlotConfig('embed', `[model]\ndefault = "https://h/x.gguf"\nsha256 = "${hex}"\n`)
    expect(ok.ok && ok.config.model).toEqual({ default: 'https://h/x.gguf', sha256: hex.toLowerCase() })
    if (ok.ok) expect(parseSlotConfig('embed', stringifySlotConfig(ok.config))).toEqual(ok)
    const local = parseSlotConfig('embed', `[model]\ndefault = "qwen3-0.6b-q8_0"\nsha256 = "${hex}"\n`)
    expect(local.ok || local.error).toMatchObject({ field: 'model.sha256', file: 'slots/embed.toml' })
    const short = parseSlotConfig('embed', '[model]\ndefault = "https://h/x.gguf"\nsha256 = "abc"\n')
    expect(short.ok || short.error.field).toBe('model.sha256')
  })
})

describe('slot files that manage themselves', () => {
  it('reads load_on_request, accepts, unload_after, pinned and the queue keys, and writes them back', () => {
    const text = [
      'load_on_request = true',
      'pull_on_request = true',
      'accepts = ["qwen3-0.6b-q8_0", "smollm2"]',
      'unload_after = "15m"',
      'pinned = true',
      'max_concurrent = 2',
      'max_queue = 8',
      'max_swap_wait = "30s"',
    ].join('\n')
    const result = parseSlotConfig('primary', text)
    expect(result.ok && result.config.demand).toEqual({
      loadOnRequest: true,
      pullOnRequest: true,
      accepts: ['qwen3-0.6b-q8_0', 'smollm2'],
      unloadAfterMs: 900_000,
      pinned: true,
      maxConcurrent: 2,
      maxQueue: 8,
      maxSwapWaitMs: 30_000,
    })
    if (!result.ok) return
    const again = parseSlotConfig('primary', stringifySlotConfig(result.config))
    expect(again.ok && again.config.demand).toEqual(result.config.demand)
  })

  it('leaves everything off by default', () => {
    const result = parseSlotConfig('primary', '')
    expect(result.ok && result.config.demand).toEqual({
      pullOnRequest: false,
      pinned: false,
      maxConcurrent: 0,
      maxQueue: 0,
      maxSwapWaitMs: 10_000,
    })
  })

  it('refuses a duration it cannot read, naming the field', () => {
    const result = parseSlotConfig('primary', 'unload_after = "soon"')
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.error.field).toBe('unload_after')
  })
})
