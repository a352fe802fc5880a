import { useId, useState } from 'preact/hooks'
import { request } from '../../api/client'
import { ModelSelect } from './model-select'
import { useV1Models } from './v1-models'

/** Ranks documents (one per line) against a query with `/v1/rerank`. */
export function RerankPanel() {
  const models = useV1Models()
  const id = useId()
  const [model, setModel] = useState('primary')
  const [query, setQuery] = useState('What is a cat?')
  const [docs, setDocs] = useState('A cat is a small domesticated animal.\nThe sky is blue.\nPasta recipes')
  const [results, setResults] = useState<{ document: string; score: number }[] | null>(null)
  const [error, setError] = useState<string | null>(null)
  return (
    <form
      class="stack"
      onSubmit={async (e) => {
        e.preventDefault()
        setError(null)
        const documents = docs
          .split('\n')
          .map((d) => d.trim())
          .filter(Boolean)
        try {
          const res = await request('/v1/rerank', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ model, query, documents }),
          })
          const body = (await res.json()) as { results: { index: number; relevance_score: number }[] }
          setResults(
            body.results
              .map((r) => ({ document: documents[r.index] ?? `#${r.index}`, score: r.relevance_score }))
              .sort((x, y) => y.score - x.score),
          )
        } catch (err) {
          setError((err as Error).message)
        }
      }}
    >
      <ModelSelect models={models.data} value={model} onChange={setModel} />
      <div class="field">
        <label for={`${id}-q`}>Query</label>
        <input id={`${id}-q`} value={query} onInput={(e) => setQuery((e.target as HTMLInputElement).value)} />
      </div>
      <div class="field">
        <label for={`${id}-d`}>Documents (one per line)</label>
        <textarea
          id={`${id}-d`}
          rows={4}
          value={docs}
          onInput={(e) => setDocs((e.target as HTMLTextAreaElement).value)}
        />
      </div>
      <div>
        <button type="submit" class="svc-button svc-button-primary">
          Rerank
        </button>
      </div>
      {error ? <p role="alert">{error}</p> : null}
      {results ? (
        <ol aria-label="Ranked documents">
          {results.map((r) => (
            <li key={r.document}>
              {r.document} <span class="hint">({r.score.toFixed(4)})</span>
            </li>
          ))}
        </ol>
      ) : null}
    </form>
  )
}
