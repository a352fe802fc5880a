/**
 * Ollama's model names (`name:tag`) and svc's ids. svc's slots and refs have no tag, so they are
 * listed as `<id>:latest`, and a request for `x:latest` resolves like `x`. An id that already has a
 * tag (FastFlowLM's `qwen3:0.6b`) is used as it is, both ways.
 */
export function svcModelName(name: string): string {
  return name.endsWith(':latest') ? name.slice(0, -':latest'.length) : name
}

export function ollamaName(id: string): string {
  return id.includes(':') ? id : `${id}:latest`
}
