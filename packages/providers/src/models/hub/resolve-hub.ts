/**
 * A Hub name to the model entry that pulls it: the repo's info (its current commit, whether it is
 * gated), its file tree at that commit (`listFiles`, recursive, every page), the files the name
 * picks (`pick-files.ts`), and for a gated repo a one-byte probe of the model's file, so a missing or
 * refused token is a clear error now rather than a failed download later. Downloads are pinned to
 * the commit; each LFS file's sha256 (the tree's `lfs.oid`) is what the download is checked against.
 */

import { listFiles, modelInfo } from '@huggingface/hub'
import { type ModelEntry, type ModelPart, SvcError } from '@svc/core'
import { checkHubToken, type HubConfig, hubAuthHeaders } from './hub-config'
import { hubError, trackErrors } from './hub-errors'
import { type HubName, hubModelName } from './hub-name'
import { type HubTreeFile, isNoMatch, pickHubFiles } from './pick-files'

/**
 * Resolves `name` against the Hub. The entry is not registered (the pull registers it once its files
 * are complete). Throws `SvcError`s (`hub-errors.ts`); 404 `model.not_found` listing the quants the
 * repo has when none matches.
 */
export async function resolveHubModel(config: HubConfig, name: HubName): Promise<ModelEntry> {
  checkHubToken(config)
  const tracked = trackErrors(config.fetch)
  const access = {
    hubUrl: config.hubUrl,
    fetch: tracked.fetch,
    ...(config.accessToken ? { accessToken: config.accessToken } : {}),
  }
  const spoken = `hf.co/${name.repo}${name.tag ? `:${name.tag}` : ''}`
  const fail = (error: unknown, repo: string, what: string) =>
    hubError(error, { hubUrl: config.hubUrl, repo, what, token: !!config.accessToken, ...tracked.last })

  let info: { name: string; sha?: string; gated: false | 'auto' | 'manual' }
  try {
    info = await modelInfo({ ...access, name: name.repo, additionalFields: ['sha'] })
  } catch (error) {
    throw fail(error, name.repo, `resolving ${spoken}`)
  }
  const repo = info.name || name.repo
  const revision = info.sha ?? 'main'
  const files: HubTreeFile[] = []
  try {
    for await (const f of listFiles({
      ...access,
      repo: { type: 'model', name: repo },
      revision,
      recursive: true,
    })) {
      if (f.type !== 'file') continue
      files.push({ path: f.path, size: f.lfs?.size ?? f.size, ...(f.lfs ? { sha256: f.lfs.oid } : {}) })
    }
  } catch (error) {
    throw fail(error, repo, `listing the files of ${repo}`)
  }

  const picked = pickHubFiles(files, name.tag)
  if (isNoMatch(picked)) throw noMatch(repo, name.tag, picked.quants, picked.incomplete)
  const url = (file: HubTreeFile) =>
    `${config.hubUrl}/${repo}/resolve/${revision}/${file.path.split('/').map(encodeURIComponent).join('/')}`
  const [first, ...rest] = picked.model as [HubTreeFile, ...HubTreeFile[]]
  if (info.gated)
    await probe(url(first), config, tracked.fetch, (e) => fail(e, repo, `fetching ${first.path}`))

  const part = (file: HubTreeFile): ModelPart => ({
    url: url(file),
    size: file.size,
    ...(file.sha256 ? { sha256: file.sha256 } : {}),
  })
  const size = picked.model.reduce((sum, f) => sum + f.size, 0)
  return {
    id: hubModelName(repo, picked.quant),
    format: 'gguf',
    provider: 'llm',
    source: 'pulled',
    url: url(first),
    ...(first.sha256 ? { sha256: first.sha256 } : {}),
    size,
    hub: { repo, revision, file: first.path, quant: picked.quant },
    ...(rest.length > 0 ? { parts: rest.map(part) } : {}),
    ...(picked.mmproj ? { mmproj: part(picked.mmproj) } : {}),
  }
}

function noMatch(repo: string, tag: string | undefined, quants: string[], incomplete?: string): SvcError {
  const name = `hf.co/${repo}${tag ? `:${tag}` : ''}`
  if (incomplete)
    return new SvcError(
      'model.not_found',
      `${name}: the split GGUF ${incomplete} is missing shards in the repo`,
      {
        param: 'model',
      },
    )
  if (quants.length === 0)
    return new SvcError('model.not_found', `${repo} on the Hub has no GGUF model file`, { param: 'model' })
  return new SvcError(
    'model.not_found',
    `${repo} on the Hub has no quant "${tag}"; it has: ${quants.join(', ')}`,
    { param: 'model' },
  )
}

/**
 * Asks for the first byte of a gated file without following the Hub's redirect: 302 (or 200/206)
 * means the token may read it; anything else is the Hub's refusal, thrown through `fail`.
 */
async function probe(
  url: string,
  config: HubConfig,
  tracked: typeof fetch,
  fail: (error: unknown) => SvcError,
): Promise<void> {
  let res: Response
  try {
    res = await tracked(url, {
      headers: { range: 'bytes=0-0', ...hubAuthHeaders(config) },
      redirect: 'manual',
    })
  } catch (error) {
    throw fail(error)
  }
  await res.body?.cancel()
  if (res.status < 400) return
  throw fail(Object.assign(new Error(`HTTP ${res.status}`), { statusCode: res.status }))
}
