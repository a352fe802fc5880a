/**
 * Hugging Face names, as people share them: `hf.co/<owner>/<repo>[:<quant>]` (Ollama's form, also
 * `huggingface.co/…`) and `hf:<owner>/<repo>[:<quant>]` (llama.cpp's `-hf` with a prefix). The quant
 * is matched later against the repo's files (`pick-files.ts`); a full file name works as the quant
 * too. The canonical name, what the registry and clients use afterwards, is `hf.co/<owner>/<repo>:<QUANT>`
 * with the repo spelled as the Hub spells it. Pure.
 */
import { SvcError } from '@svc/core'

export interface HubName {
  /** `owner/repo` as written (the Hub matches it case-insensitively). */
  repo: string
  /** What follows `:`, as written; undefined for the default quant. */
  tag?: string
}

const PREFIX = /^(?:(?:hf\.co|huggingface\.co)\/|hf:)/i
/** The Hub's repo names: letters, digits, `-`, `_`, `.`; at most 96 characters each part. */
const PART = /^[A-Za-z0-9][A-Za-z0-9._-]{0,95}$/
/** A quant or a file path in the repo (no `..` segments, nothing odd). */
const TAG = /^[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)*$/

/** Whether `spec` is written as a Hub name (it may still be malformed: `parseHubName` says why). */
export function isHubName(spec: string): boolean {
  return PREFIX.test(spec)
}

/**
 * Parses a Hub name; undefined when `spec` is not written as one (`isHubName`). Throws 400
 * `request.invalid` (param `model`) for one that is, but names no valid `owner/repo` or quant.
 */
export function parseHubName(spec: string): HubName | undefined {
  if (!isHubName(spec)) return undefined
  const rest = spec.replace(PREFIX, '')
  const colon = rest.indexOf(':')
  const repo = colon === -1 ? rest : rest.slice(0, colon)
  const tag = colon === -1 ? undefined : rest.slice(colon + 1)
  const parts = repo.split('/')
  const bad = (why: string) =>
    new SvcError('request.invalid', `"${spec}" is not a Hugging Face name: ${why}`, { param: 'model' })
  if (parts.length !== 2 || !parts.every((p) => PART.test(p) && !p.includes('..')))
    throw bad('expected hf.co/<owner>/<repo>[:<quant>]')
  if (tag !== undefined && (!TAG.test(tag) || tag.split('/').some((s) => s === '.' || s === '..')))
    throw bad(`"${tag}" is not a quant or a file name`)
  return { repo, ...(tag ? { tag } : {}) }
}

/** The canonical name of a repo's quant: `hf.co/<owner>/<repo>:<quant>`. */
export function hubModelName(repo: string, quant: string): string {
  return `hf.co/${repo}:${quant}`
}
