import { useId, useState } from 'preact/hooks'
import { request } from '../../api/client'
import { ModelSelect } from './model-select'
import { useV1Models } from './v1-models'

/** Cosine similarity of two vectors (pure). */
export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0
  let na = 0
  let nb = 0
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    dot += a[i]! * b[i]!
    na += a[i]! * a[i]!
    nb += b[i]! * b[i]!
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0
}

/** Embeds two texts: the vector length and how similar they are. */
export function EmbeddingsPanel() {
  const models = useV1Models()
  const id = useId()
  const [model, setModel] = useState('embed')
  const [a, setA] = useState('A cat sits on the mat.')
  const [b, setB] = useState('A kitten is lying on a rug.')
  const [result, setResult] = useState<{ length: number; similarity: number } | null>(null)
  const [error, setError] = useState<string | null>(null)
  return (
    <form
      class="stack"
      onSubmit={async (e) => {
        e.preventDefault()
        setError(null)
        try {
          const res = await request('/v1/embeddings', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ model, input: [a, b] }),
          })
          const body = (await res.json()) as { data: { index: number; embedding: number[] }[] }
          const [ea, eb] = [...body.data].sort((x, y) => x.index - y.index).map((d) => d.embedding)
          setResult({ length: ea?.length ?? 0, similarity: cosine(ea ?? [], eb ?? []) })
        } catch (err) {
          setError((err as Error).message)
        }
      }}
    >
      <ModelSelect models={models.data} value={model} onChange={setModel} />
      <div class="field">
        <label for={`${id}-a`}>First text</label>
        <textarea
          id={`${id}-a`}
          rows={2}
          value={a}
          onInput={(e) => setA((e.target as HTMLTextAreaElement).value)}
        />
      </div>
      <div class="field">
        <label for={`${id}-b`}>Second text</label>
        <textarea
          id={`${id}-b`}
          rows={2}
          value={b}
          onInput={(e) => setB((e.target as HTMLTextAreaElement).value)}
        />
      </div>
      <div>
        <button type="submit" class="svc-button svc-button-primary">
          Embed
        </button>
      </div>
      {error ? <p role="alert">{error}</p> : null}
      {result ? (
        <p role="status">
          Vector length {result.length} · cosine similarity {result.similarity.toFixed(4)}
        </p>
      ) : null}
    </form>
  )
}
