import { useState } from 'preact/hooks'
import { postJson } from '../../api/client'
import { SubmitRow } from '../../components/submit-row'
import { TextField } from '../../components/text-field'
import { useSubmit } from '../../hooks/use-submit'
import { useKindGate } from './kind-gate'
import { ModelSelect } from './model-select'
import { inWords } from './problem'
import { modelsFor, useV1Models } from './v1-models'

/** Ranks documents (one per line) against a query with `/v1/rerank`. */
export function RerankPanel() {
  const v1 = useV1Models()
  const models = v1.data && modelsFor(v1.data, 'rerank')
  const gate = useKindGate('rerank', models)
  const [picked, setModel] = useState<string | null>(null)
  const model = picked ?? models?.[0]?.id ?? ''
  const [query, setQuery] = useState('What is a cat?')
  const [docs, setDocs] = useState('A cat is a small domesticated animal.\nThe sky is blue.\nPasta recipes')
  const [results, setResults] = useState<{ document: string; score: number }[] | null>(null)
  const submit = useSubmit(async () => {
    const documents = docs
      .split('\n')
      .map((d) => d.trim())
      .filter(Boolean)
    const res = await inWords(postJson('/v1/rerank', { model, query, documents }), model)
    const body = (await res.json()) as { results: { index: number; relevance_score: number }[] }
    setResults(
      body.results
        .map((r) => ({ document: documents[r.index] ?? `#${r.index}`, score: r.relevance_score }))
        .sort((x, y) => y.score - x.score),
    )
  })
  return (
    <form class="stack" onSubmit={submit.onSubmit}>
      {gate.notice}
      <ModelSelect models={models} value={model} onChange={setModel} />
      <TextField label="Query" value={query} onChange={setQuery} />
      <TextField label="Documents (one per line)" rows={4} value={docs} onChange={setDocs} />
      <SubmitRow submit={submit} label="Rerank" busyLabel="Ranking…" disabled={!gate.open || !model} />
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
