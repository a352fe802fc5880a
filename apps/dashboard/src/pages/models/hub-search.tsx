import { useId, useState } from 'preact/hooks'
import { api, send } from '../../api/client'
import type { HubHit } from '../../api/types'
import { Field } from '../../components/field'
import { useDebounced } from '../../hooks/use-debounced'
import { useFetch } from '../../hooks/use-fetch'

const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 })

export interface HubSearchProps {
  /** The repo whose quants are shown (its result is marked as the current one). */
  selected: string | null
  onSelect(repo: string): void
}

/**
 * Searches the Hugging Face Hub's GGUF repos as the person types (once typing pauses), most
 * downloaded first; picking a result shows its quants.
 */
export function HubSearch({ selected, onSelect }: HubSearchProps) {
  const [text, setText] = useState('')
  const query = useDebounced(text.trim(), 350)
  const id = useId()
  const results = useFetch(
    () =>
      query.length < 2 ? Promise.resolve(undefined) : send<{ models: HubHit[] }>('GET', searchUrl(query)),
    [query],
  )
  const hits: HubHit[] = query.length < 2 ? [] : (results.data?.models ?? [])
  return (
    <div class="hub-search">
      <Field
        id={id}
        label="Find models on the Hugging Face Hub"
        hint="GGUF repos, most downloaded first, e.g. qwen3 or unsloth gemma"
      >
        <input
          id={id}
          type="search"
          value={text}
          autocomplete="off"
          onInput={(e) => setText((e.target as HTMLInputElement).value)}
        />
      </Field>
      {query.length >= 2 && results.error ? <p role="alert">{results.error}</p> : null}
      {query.length >= 2 && results.data && hits.length === 0 ? (
        <p class="hint">No GGUF repo matches “{query}”.</p>
      ) : null}
      {hits.length > 0 ? (
        <ul class="hub-results" aria-label="Hub search results">
          {hits.map((h) => (
            <li key={h.id}>
              <button
                type="button"
                class="hub-result"
                aria-current={selected === h.id ? 'true' : undefined}
                onClick={() => onSelect(h.id)}
              >
                <strong>{h.id}</strong>
                <span class="hint">
                  {compact.format(h.downloads)} downloads · {compact.format(h.likes)} likes
                  {h.updated ? ` · updated ${h.updated.slice(0, 10)}` : ''}
                  {h.private ? ' · private' : h.gated ? ' · gated (needs HF_TOKEN)' : ''}
                </span>
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  )
}

function searchUrl(q: string): URL {
  const url = api.api.models.search.$url()
  url.search = new URLSearchParams({ q, limit: '20' }).toString()
  return url
}
