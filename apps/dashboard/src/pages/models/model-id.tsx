import { Fragment } from 'preact'

/**
 * A model id (`hf.co/owner/repo:Q4_K_M`, `qwen3-0.6b-q8_0`) that wraps on a narrow screen only after
 * `/`, `-`, `:` or `_`, never inside a word; the whole id is its tooltip.
 */
export function ModelId({ id }: { id: string }) {
  const parts = id.split(/(?<=[/:_-])/)
  return (
    <span class="model-id" title={id}>
      {parts.map((part, i) => (
        <Fragment key={i}>
          {part}
          {i < parts.length - 1 ? <wbr /> : null}
        </Fragment>
      ))}
    </span>
  )
}
