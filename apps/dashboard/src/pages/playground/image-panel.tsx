import { useId, useState } from 'preact/hooks'
import { request } from '../../api/client'

interface ImageResult {
  data: { url?: string; b64_json?: string }[]
  _svc?: Record<string, unknown>
}

/** Image generation on the `img` slot: prompt, size, n, seed, steps, cfg, negative prompt. */
export function ImagePanel() {
  const id = useId()
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
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const input = (key: keyof typeof form, label: string, extra: Record<string, unknown> = {}) => (
    <div class="field">
      <label for={`${id}-${key}`}>{label}</label>
      <input
        id={`${id}-${key}`}
        value={form[key]}
        onInput={(e) => setForm((f) => ({ ...f, [key]: (e.target as HTMLInputElement).value }))}
        {...extra}
      />
    </div>
  )
  return (
    <form
      class="stack"
      onSubmit={async (e) => {
        e.preventDefault()
        setError(null)
        setBusy(true)
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
        try {
          const res = await request('/v1/images/generations', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          })
          setResult((await res.json()) as ImageResult)
        } catch (err) {
          setError((err as Error).message)
        } finally {
          setBusy(false)
        }
      }}
    >
      <div class="field">
        <label for={`${id}-prompt`}>Prompt</label>
        <textarea
          id={`${id}-prompt`}
          rows={2}
          value={form.prompt}
          onInput={(e) => setForm((f) => ({ ...f, prompt: (e.target as HTMLTextAreaElement).value }))}
        />
      </div>
      <div class="form-grid">
        {input('size', 'Size (WxH)', { pattern: '\\d+x\\d+' })}
        {input('n', 'Images (n)', { type: 'number', min: 1, max: 8 })}
        {input('seed', 'Seed', { inputMode: 'numeric' })}
        {input('steps', 'Steps', { type: 'number', min: 1 })}
        {input('cfg', 'CFG', { type: 'number', step: '0.1', min: 0 })}
        {input('negative', 'Negative prompt')}
      </div>
      <div>
        <button type="submit" class="svc-button svc-button-primary" disabled={busy}>
          {busy ? 'Generating…' : 'Generate'}
        </button>
      </div>
      {error ? <p role="alert">{error}</p> : null}
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
