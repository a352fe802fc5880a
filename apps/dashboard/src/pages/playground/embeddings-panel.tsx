import { useState } from 'preact/hooks'
import { postJson } from '../../api/client'
import { SubmitRow } from '../../components/submit-row'
import { TextField } from '../../components/text-field'
import { useSubmit } from '../../hooks/use-submit'
import { useKindGate } from './kind-gate'
import { ModelSelect } from './model-select'
import { inWords } from './problem'
import { modelsFor, useV1Models } from './v1-models'

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
  const v1 = useV1Models()
  const models = v1.data && modelsFor(v1.data, 'embeddings')
  const gate = useKindGate('embeddings', models)
  const [picked, setModel] = useState<string | null>(null)
  const model = picked ?? models?.[0]?.id ?? ''
  const [a, setA] = useState('A cat sits on the mat.')
  const [b, setB] = useState('A kitten is lying on a rug.')
  const [result, setResult] = useState<{ length: number; similarity: number } | null>(null)
  const submit = useSubmit(async () => {
    const res = await inWords(postJson('/v1/embeddings', { model, input: [a, b] }), model)
    const body = (await res.json()) as { data: { index: number; embedding: number[] }[] }
    const [ea, eb] = [...body.data].sort((x, y) => x.index - y.index).map((d) => d.embedding)
    setResult({ length: ea?.length ?? 0, similarity: cosine(ea ?? [], eb ?? []) })
  })
  return (
    <form class="stack" onSubmit={submit.onSubmit}>
      {gate.notice}
      <ModelSelect models={models} value={model} onChange={setModel} />
      <TextField label="First text" rows={2} value={a} onChange={setA} />
      <TextField label="Second text" rows={2} value={b} onChange={setB} />
      <SubmitRow submit={submit} label="Embed" busyLabel="Embedding…" disabled={!gate.open || !model} />
      {result ? (
        <p role="status">
          Vector length {result.length} · cosine similarity {result.similarity.toFixed(4)}
        </p>
      ) : null}
    </form>
  )
}
