import { useState } from 'preact/hooks'
import { postJson } from '../../api/client'
import { SubmitRow } from '../../components/submit-row'
import { TextField } from '../../components/text-field'
import { useSubmit } from '../../hooks/use-submit'
import { useKindGate } from './kind-gate'
import { inWords } from './problem'
import { modelsFor, useV1Models } from './v1-models'

interface ImageResult {
  data: { url?: string; b64_json?: string }[]
  _svc?: Record<string, unknown>
}

/**
 * Image generation on the `img` slot: prompt, size, n, seed, steps, cfg, negative prompt. Generate
 * stays disabled, with the reason and its fix, where images cannot run here (the slot's `runnable`)
 * or while nothing listed makes images.
 */
export function ImagePanel() {
  const v1 = useV1Models()
  const gate = useKindGate('images', v1.data && modelsFor(v1.data, 'images'))
  const [form, setForm] = useState({
    prompt: 'a lighthouse at dusk',
    size: '512x512',
    n: '1',
    seed: '',
    steps: '',
    cfg: '',
    negative: '',
  })
  const [result, setResult] = useState<ImageResult | null>(null)
  const submit = useSubmit(async () => {
    // b64_json: an <img> cannot send the bearer token that /api/images/cache/* needs with auth on.
    const body: Record<string, unknown> = {
      model: 'img',
      prompt: form.prompt,
      size: form.size,
      n: Number(form.n),
      response_format: 'b64_json',
    }
    // Seeds above 2^53 travel as strings (svc reads them exactly).
    if (form.seed.trim())
      body.seed = /^\d{16,}$/.test(form.seed.trim()) ? form.seed.trim() : Number(form.seed)
    if (form.steps.trim()) body.steps = Number(form.steps)
    if (form.cfg.trim()) body.cfg = Number(form.cfg)
    if (form.negative.trim()) body.negative_prompt = form.negative.trim()
    const res = await inWords(postJson('/v1/images/generations', body), 'img')
    setResult((await res.json()) as ImageResult)
  })
  const field = (key: keyof typeof form) => ({
    value: form[key],
    onChange: (value: string) => setForm((f) => ({ ...f, [key]: value })),
  })
  return (
    <form class="stack" onSubmit={submit.onSubmit}>
      {gate.notice}
      <TextField label="Prompt" rows={2} {...field('prompt')} />
      <div class="form-grid">
        <TextField label="Size (WxH)" {...field('size')} input={{ pattern: '\\d+x\\d+' }} />
        <TextField label="Images (n)" {...field('n')} input={{ type: 'number', min: 1, max: 8 }} />
        <TextField label="Seed" {...field('seed')} input={{ inputMode: 'numeric' }} />
        <TextField label="Steps" {...field('steps')} input={{ type: 'number', min: 1 }} />
        <TextField label="CFG" {...field('cfg')} input={{ type: 'number', step: '0.1', min: 0 }} />
        <TextField label="Negative prompt" {...field('negative')} />
      </div>
      <SubmitRow submit={submit} label="Generate" busyLabel="Generating…" disabled={!gate.open} />
      {result ? (
        <>
          <div class="images">
            {result.data.map((img, i) => (
              <img
                key={i}
                src={img.url ?? `data:image/png;base64,${img.b64_json}`}
                alt={`Generated ${i + 1} of ${result.data.length}: ${form.prompt}`}
              />
            ))}
          </div>
          <details open>
            <summary>_svc</summary>
            <pre>{JSON.stringify(result._svc ?? null, null, 2)}</pre>
          </details>
        </>
      ) : null}
    </form>
  )
}
