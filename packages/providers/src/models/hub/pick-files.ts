/**
 * Which of a repo's files a Hub name means, by llama.cpp's rules (common/download.cpp
 * find_best_model, get_split_files, find_best_sibling):
 *
 * - the quant is the case-insensitive regex `<quant>[.-]` on the path; a full file name (or path)
 *   matches that file; with no quant, Q4_K_M, then Q8_0, then the first GGUF;
 * - files with `mmproj` or `imatrix` in the name are never the model;
 * - of a split GGUF only the first shard (`-00001-of-0000N.gguf`) is picked, and every shard comes
 *   along (all N must be there);
 * - the vision projector is the `mmproj` GGUF in the folder nearest the model's, nearest in quant
 *   bits.
 *
 * Pure; files in any order (they are sorted by path first, as the Hub lists them).
 */
import { parseGGUFQuantLabel } from '@huggingface/gguf'

/** One file of the repo's tree. `sha256` and `size` are the LFS facts when the file is in LFS. */
export interface HubTreeFile {
  path: string
  size: number
  sha256?: string
}

export interface PickedFiles {
  /** The quant label the canonical name carries (`Q4_K_M`), else the file's stem. */
  quant: string
  /** The model: one file, or every shard in order (llama-server loads the first). */
  model: HubTreeFile[]
  mmproj?: HubTreeFile
}

/** No file matches: what the repo has instead (its quant labels, sorted). */
export interface NoMatch {
  quants: string[]
  /** The first shard of a split whose other shards are not all in the repo. */
  incomplete?: string
}

const SHARD = /-(\d{5})-of-(\d{5})\.gguf$/i
const DEFAULT_QUANTS = ['Q4_K_M', 'Q8_0']

/** The files `tag` (or the default rule) picks, or the quants there are when nothing matches. */
export function pickHubFiles(files: readonly HubTreeFile[], tag?: string): PickedFiles | NoMatch {
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  const ggufs = sorted.filter((f) => /\.gguf$/i.test(f.path))
  const models = ggufs.filter((f) => !/mmproj|imatrix/i.test(baseName(f.path)))
  // Only a first shard (or a file that is not a shard) can be picked.
  const pickable = models.filter((f) => Number(SHARD.exec(f.path)?.[1] ?? 1) === 1)
  const chosen = tag ? matchTag(pickable, tag) : defaultPick(pickable)
  if (!chosen) return { quants: labels(pickable) }
  const shards = SHARD.exec(chosen.path)
  let model = [chosen]
  if (shards) {
    const prefix = chosen.path.slice(0, shards.index)
    const count = Number(shards[2])
    model = models.filter((f) => {
      const s = SHARD.exec(f.path)
      return s && f.path.slice(0, s.index) === prefix && Number(s[2]) === count
    })
    if (model.length !== count)
      return { quants: pickable.map((f) => quantOf(f.path)), incomplete: chosen.path }
  }
  const quant = quantOf(chosen.path)
  const mmproj = nearestProjector(ggufs, chosen.path, quant)
  return { quant, model, ...(mmproj ? { mmproj } : {}) }
}

/** Whether `pickHubFiles` found nothing. */
export function isNoMatch(picked: PickedFiles | NoMatch): picked is NoMatch {
  return 'quants' in picked
}

/** The quant label of a model file (`Q4_K_M`); a split's label is its prefix's; else the file's stem. */
export function quantOf(path: string): string {
  const stem = baseName(path)
    .replace(SHARD, '')
    .replace(/\.gguf$/i, '')
  return parseGGUFQuantLabel(stem) ?? stem
}

/** The distinct quant labels of `files`, sorted. */
function labels(files: readonly HubTreeFile[]): string[] {
  return [...new Set(files.map((f) => quantOf(f.path)))].sort((a, b) => a.localeCompare(b))
}

function matchTag(files: readonly HubTreeFile[], tag: string): HubTreeFile | undefined {
  const lower = tag.toLowerCase()
  const byName = files.find((f) => f.path.toLowerCase() === lower || baseName(f.path).toLowerCase() === lower)
  if (byName) return byName
  const re = new RegExp(`${escapeRegExp(tag)}[.-]`, 'i')
  return files.find((f) => re.test(f.path))
}

function defaultPick(files: readonly HubTreeFile[]): HubTreeFile | undefined {
  for (const quant of DEFAULT_QUANTS) {
    const found = matchTag(files, quant)
    if (found) return found
  }
  return files[0]
}

/** The `mmproj` GGUF sharing the deepest folder with the model, then nearest in quant bits. */
function nearestProjector(
  ggufs: readonly HubTreeFile[],
  modelPath: string,
  quant: string,
): HubTreeFile | undefined {
  const folders = dirParts(modelPath)
  const bits = quantBits(quant)
  let best: { file: HubTreeFile; shared: number; distance: number } | undefined
  for (const file of ggufs) {
    if (!/mmproj/i.test(baseName(file.path))) continue
    const theirs = dirParts(file.path)
    let shared = 0
    while (shared < theirs.length && theirs[shared] === folders[shared]) shared++
    // A projector in a folder the model is not in belongs to another model of the repo.
    if (shared < theirs.length) continue
    const distance = Math.abs(quantBits(quantOf(file.path)) - bits)
    if (!best || shared > best.shared || (shared === best.shared && distance < best.distance))
      best = { file, shared, distance }
  }
  return best?.file
}

/** Bits per weight a label names (`Q4_K_M` → 4, `BF16` → 16); 16 when it names none. */
function quantBits(label: string): number {
  const m = /(?:^|[^A-Z])(?:I?Q|BF|F|TQ)(\d+)/i.exec(label)
  return m ? Number(m[1]) : 16
}

function dirParts(path: string): string[] {
  return path.split('/').slice(0, -1)
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1)
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
