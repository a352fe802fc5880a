/**
 * A Hub repo's GGUF files grouped by quantisation, as the Models page and `GET
 * /api/models/hub/<owner>/<repo>` list them: one row per quant with its Hub name
 * (`hf.co/<owner>/<repo>:<QUANT>`, what `ModelStore.resolve` accepts), its files (every shard of a
 * split GGUF), and its size in bytes (the shards summed). A repo's `mmproj` files are the vision
 * projector, never a quant; `imatrix` files are calibration data, never a model. Pure.
 */
import { parseGGUFQuantLabel } from '@huggingface/gguf'

/** One file of the repo's tree, as the Hub's tree API lists it (`listFiles`). */
export interface RepoFile {
  path: string
  /** Bytes (the pointer's size for an LFS file: `lfs.size` is the real one). */
  size: number
  lfs?: { size: number }
}

/** One quantisation of a repo. */
export interface RepoQuant {
  /** The quant label (`Q4_K_M`), else the file's name without `.gguf`; its path when two share a label. */
  quant: string
  /** The Hub name that pulls and loads exactly this quant. */
  name: string
  /** Paths in the repo: one file, or every shard of a split GGUF in order. */
  files: string[]
  /** Bytes of all its files. */
  size: number
  split: boolean
}

export interface RepoQuants {
  quants: RepoQuant[]
  /** The vision projector files (`mmproj*.gguf`), smallest first; empty for a text-only repo. */
  mmproj: { path: string; size: number }[]
  /** The quant a name without `:<quant>` gets (Q4_K_M, then Q8_0, then the first), if any. */
  defaultQuant: string | null
}

const SHARD = /^(?<prefix>.*)-(?<shard>\d{5})-of-(?<total>\d{5})\.gguf$/i

/** Groups a repo's files (any order, non-GGUF files ignored) by quant, smallest first. */
export function groupQuants(repo: string, files: readonly RepoFile[]): RepoQuants {
  const groups = new Map<string, { files: RepoFile[]; split: boolean }>()
  const mmproj: { path: string; size: number }[] = []
  for (const file of files) {
    const name = baseName(file.path)
    if (!/\.gguf$/i.test(name) || /imatrix/i.test(name)) continue
    if (/mmproj/i.test(name)) {
      mmproj.push({ path: file.path, size: bytesOf(file) })
      continue
    }
    const shard = SHARD.exec(file.path)
    const key = shard ? shard.groups!.prefix! : file.path
    const group = groups.get(key) ?? { files: [], split: shard !== null }
    group.files.push(file)
    groups.set(key, group)
  }
  const taken = new Set<string>()
  const quants: RepoQuant[] = []
  for (const [key, group] of groups) {
    group.files.sort((a, b) => a.path.localeCompare(b.path))
    const stem = baseName(key).replace(/\.gguf$/i, '')
    // Two files with one label (the same quant in two folders): the second goes by its path, which
    // the name resolution matches exactly (a split by its first part).
    let quant = parseGGUFQuantLabel(stem) ?? stem
    if (taken.has(quant.toUpperCase())) quant = group.files[0]!.path
    taken.add(quant.toUpperCase())
    quants.push({
      quant,
      name: `hf.co/${repo}:${quant}`,
      files: group.files.map((f) => f.path),
      size: group.files.reduce((sum, f) => sum + bytesOf(f), 0),
      split: group.split,
    })
  }
  quants.sort((a, b) => a.size - b.size || a.quant.localeCompare(b.quant))
  mmproj.sort((a, b) => a.size - b.size)
  const pick = (label: string) => quants.find((q) => q.quant.toUpperCase() === label)?.quant
  return { quants, mmproj, defaultQuant: pick('Q4_K_M') ?? pick('Q8_0') ?? quants[0]?.quant ?? null }
}

function bytesOf(file: RepoFile): number {
  return file.lfs?.size ?? file.size
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1)
}
