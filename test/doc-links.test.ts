import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import {
  anchorsOf,
  codeReferenceProblems,
  documentationFiles,
  filesUnder,
  type LinkProblem,
  markdownLinkProblems,
  slugOf,
} from './doc-links'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const CODE_DIRS = ['apps', 'packages', 'bench', 'soak', 'scripts', 'test']
const CODE_ENDINGS = ['.ts', '.tsx', '.mjs', '.sh']
// This check's own files spell out the patterns they look for.
const SELF = new Set(['test/doc-links.ts', 'test/doc-links.test.ts'])

const show = (problems: LinkProblem[]): string =>
  problems.map((problem) => `${problem.file}:${problem.line}: ${problem.message}`).join('\n')

/** A throw-away repository with the given files. */
function repo(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'svc-doc-links-'))
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  return root
}

describe('doc links', () => {
  it('every relative link in the README, docs/ and the apps and packages READMEs reaches a file and heading', () => {
    const files = documentationFiles(ROOT)
    expect(files).toContain('README.md')
    expect(files).toContain('docs/api.md')
    const problems = files.flatMap((file) => markdownLinkProblems(ROOT, file))
    expect(show(problems), 'fix the link, or the heading it names (anchors are GitHub slugs)').toBe('')
  })

  it('no code points into a README section, or at a README or docs page that does not exist', () => {
    const files = filesUnder(ROOT, CODE_DIRS, CODE_ENDINGS).filter((file) => !SELF.has(file))
    expect(files.length).toBeGreaterThan(100)
    const problems = files.flatMap((file) => codeReferenceProblems(ROOT, file))
    expect(show(problems)).toBe('')
  })

  it("computes GitHub's heading anchors", () => {
    expect(slugOf('Adding a name: `SVC_ALLOWED_HOSTS`')).toBe('adding-a-name-svc_allowed_hosts')
    expect(slugOf("Errors in Anthropic's shape")).toBe('errors-in-anthropics-shape')
    expect(slugOf('Slot configs: `<config>/slots/<slot>.toml`')).toBe('slot-configs-configslotsslottoml')
    expect(slugOf('CORS (browsers)')).toBe('cors-browsers')
    const anchors = anchorsOf('# A\n## Errors\n```\n# not a heading\n```\n### Errors\n')
    expect([...anchors]).toEqual(['a', 'errors', 'errors-1'])
  })

  it('finds a missing file, a missing heading, and leaves external links alone', () => {
    const root = repo({
      'docs/a.md':
        '# A\n\n## Here\n\n[ok](b.md#there) [bad](b.md#nowhere) [gone](c.md) [web](https://x.test/y#z) [self](#here)\n',
      'docs/b.md': '# B\n\n## There\n',
    })
    const messages = markdownLinkProblems(root, 'docs/a.md').map((problem) => problem.message)
    expect(messages).toEqual([
      'link (b.md#nowhere): b.md has no heading with the anchor #nowhere',
      'link (c.md): c.md does not exist',
    ])
  })

  it('refuses code that names a README section, and accepts a docs page that exists', () => {
    const readme = 'READ' + 'ME'
    const root = repo({
      'README.md': '# svc\n\n## Chat\n',
      'docs/auth.md': '# Auth\n\n## Scopes\n',
      'src/a.ts': [
        `// see ${readme}.md#chat`,
        `// (${readme} "Chat")`,
        `// the ${readme}'s scope table`,
        '// docs/auth.md#scopes',
        '// docs/auth.md#nowhere',
        `// see soak/${readme}.md`,
        `// wraps: (${readme}`,
        '// "Chat")',
        `// https://example.test/docs/gguf.md and https://example.test/${readme}.md#x are not ours`,
      ].join('\n'),
    })
    const lines = codeReferenceProblems(root, 'src/a.ts').map((problem) => problem.line)
    expect(lines).toEqual([1, 2, 3, 5, 6, 7])
  })
})
