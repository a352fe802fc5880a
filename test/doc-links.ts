import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

/**
 * The checks behind `doc-links.test.ts`: every markdown link in the docs reaches a file and heading
 * that exist, and no code points into a README section (the README is a quick start; reference text
 * lives in docs/*.md, so code points there).
 */

/** GitHub's anchor for a heading: lower case, punctuation other than `-` and `_` dropped, spaces → `-`. */
export function slugOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-')
}

/** Lines outside fenced code blocks, with their 1-based numbers. */
function proseLines(markdown: string): { text: string; line: number }[] {
  const out: { text: string; line: number }[] = []
  let fence: string | null = null
  markdown.split('\n').forEach((text, i) => {
    const opener = /^\s*(`{3,}|~{3,})/.exec(text)
    if (opener) {
      const mark = opener[1] as string
      if (fence === null) fence = mark
      else if (mark.startsWith(fence)) fence = null
      return
    }
    if (fence === null) out.push({ text, line: i + 1 })
  })
  return out
}

/** Every anchor a markdown file offers (duplicate headings get `-1`, `-2`, as on GitHub). */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>()
  const anchors = new Set<string>()
  for (const { text } of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text)
    if (!heading) continue
    const slug = slugOf(heading[1] as string)
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    anchors.add(count === 0 ? slug : `${slug}-${count}`)
  }
  return anchors
}

export interface LinkProblem {
  file: string
  line: number
  message: string
}

const anchorCache = new Map<string, Set<string>>()
function anchorsOfFile(path: string): Set<string> {
  let anchors = anchorCache.get(path)
  if (!anchors) {
    anchors = anchorsOf(readFileSync(path, 'utf8'))
    anchorCache.set(path, anchors)
  }
  return anchors
}

/** Whether `target` (a path, optionally `#anchor`) resolves from `fromDir`; the reason when not. */
function checkTarget(fromDir: string, target: string, fromFile: string): string | null {
  const hash = target.indexOf('#')
  const pathPart = hash === -1 ? target : target.slice(0, hash)
  const anchor = hash === -1 ? null : target.slice(hash + 1)
  const file = pathPart === '' ? fromFile : resolve(fromDir, decodeURIComponent(pathPart))
  if (!existsSync(file)) return `${pathPart} does not exist`
  if (anchor === null || anchor === '') return null
  if (!file.endsWith('.md') || statSync(file).isDirectory()) return null
  if (anchorsOfFile(file).has(anchor.toLowerCase())) return null
  return `${pathPart || 'this file'} has no heading with the anchor #${anchor}`
}

/** Broken relative links (file or heading) in one markdown file. */
export function markdownLinkProblems(root: string, file: string): LinkProblem[] {
  const problems: LinkProblem[] = []
  const absolute = join(root, file)
  for (const { text, line } of proseLines(readFileSync(absolute, 'utf8'))) {
    const withoutCode = text.replace(/`[^`]*`/g, '')
    for (const match of withoutCode.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1] as string
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue // http:, https:, mailto:
      const reason = checkTarget(dirname(absolute), target, absolute)
      if (reason) problems.push({ file, line, message: `link (${target}): ${reason}` })
    }
  }
  return problems
}

const README_SECTION = [
  /\bREADME(?:\.md)?#[\w-]+/, // README.md#anchor
  /\bREADME(?:\.md)?,?\s*\(?["“][^"”]+["”]/, // README "Chat", README, "Turning auth on"
  /\bthe README\b|\bREADME's\b/, // the README's scope table, see the README
]

/** A line without its URLs (a README or docs page of another project is not ours to check). */
const withoutUrls = (text: string): string => text.replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, '')

/** Code that points into a README's sections, or at a README or docs page that does not exist. */
export function codeReferenceProblems(root: string, file: string): LinkProblem[] {
  const problems: LinkProblem[] = []
  const absolute = join(root, file)
  const lines = readFileSync(absolute, 'utf8').split('\n')
  lines.forEach((raw, i) => {
    const line = i + 1
    const text = withoutUrls(raw)
    // A reference may wrap: `(README` at the end of one comment line, `"Chat")` on the next.
    const next = withoutUrls(lines[i + 1] ?? '').replace(/^\s*(?:\*|\/\/|#)?\s*/, '')
    const joined = `${text} ${next}`
    for (const rule of README_SECTION) {
      const match = rule.exec(joined)
      if (match && match.index < text.length)
        problems.push({
          file,
          line,
          message: `"${match[0]}" points into a README's text; the README is a quick start and its sections move. Point at the docs/ page that holds the text instead, e.g. "docs/auth.md#scopes" (find it with: grep -rn '<a phrase>' docs)`,
        })
    }
    for (const match of text.matchAll(/(?<![\w./-])(?:[\w@.-]+\/)*README\.md/g)) {
      const path = match[0]
      const found = [dirname(absolute), root].some((base) => existsSync(resolve(base, path)))
      if (!found)
        problems.push({
          file,
          line,
          message: `${path} does not exist (from this file's folder or the repository root)`,
        })
    }
    for (const match of text.matchAll(/(?<![\w./-])docs\/[\w-]+\.md(?:#[\w-]+)?/g)) {
      const reason = checkTarget(root, match[0], absolute)
      if (reason) problems.push({ file, line, message: `${match[0]}: ${reason}` })
    }
  })
  return problems
}

const SKIP_DIRS = new Set(['node_modules', 'dist', 'dist-server', '.turbo', 'coverage', 'results', '.git'])

/** Files under `dirs` (relative to `root`) whose names end with one of `endings`, relative paths. */
export function filesUnder(root: string, dirs: string[], endings: string[]): string[] {
  const out: string[] = []
  const walk = (dir: string): void => {
    if (!existsSync(dir)) return
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (!SKIP_DIRS.has(entry.name)) walk(join(dir, entry.name))
      } else if (endings.some((ending) => entry.name.endsWith(ending))) {
        out.push(relative(root, join(dir, entry.name)))
      }
    }
  }
  for (const dir of dirs) walk(join(root, dir))
  return out.sort()
}

/** The markdown files whose links are checked: the README, docs/, and each app's and package's README. */
export function documentationFiles(root: string): string[] {
  const readmes = ['apps', 'packages'].flatMap((group) =>
    existsSync(join(root, group))
      ? readdirSync(join(root, group))
          .map((name) => `${group}/${name}/README.md`)
          .filter((path) => existsSync(join(root, path)))
      : [],
  )
  return ['README.md', ...filesUnder(root, ['docs'], ['.md']), ...readmes]
}
