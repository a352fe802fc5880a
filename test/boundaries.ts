/**
 * The dependency rules of docs/architecture.md ("Packages and dependency direction"), as a checker
 * over plain data (so its own test can feed it a forbidden import) and a reader for the real repo;
 * the size rule of the house style (no source file in `packages/<name>/src` over 300 lines); and who
 * reads the process's environment (docs/configuration.md: each program reads it in one place).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'

export interface PackageInfo {
  name: string
  dir: string
  /** dependencies + devDependencies of its package.json */
  declared: string[]
  /** dev-only declarations (tests may use them; src may not) */
  devOnly: string[]
  files: { path: string; source: string }[]
}

/** Which @svc packages each package may import. Apps may import any package, never another app. */
const ALLOWED: Record<string, string[]> = {
  '@svc/core': [],
  // The engine binaries (names, cache, lookup, builds): Node-only, knows nothing of slots.
  '@svc/engines': [],
  '@svc/providers': ['@svc/core', '@svc/engines'],
  '@svc/auth': ['@svc/core'],
  '@svc/dispatcher': ['@svc/core'],
  // Test parts find the same engine binaries the providers run.
  '@svc/testing': ['@svc/core', '@svc/engines'],
  // Browser-only components; core for its types (slot states, events).
  '@svc/ui': ['@svc/core'],
}
const APPS = new Set(['@svc/api', '@svc/cli', '@svc/dashboard', '@svc/chat'])
/** What @svc/core never imports: frameworks and I/O libraries (its `src/node` entry may use node:fs). */
const CORE_FORBIDDEN = [
  /^hono($|\/)/,
  /^@hono\//,
  /^dockerode$/,
  /^prom-client$/,
  /^(node:)?child_process$/,
  /^undici$/,
  /^(node:)?(http|https|net)$/,
]
/**
 * Provider concepts @svc/core must not name in its code: the upstream programs, the engine binaries
 * and the container engines. Core knows slots, states and config (provider *kinds* like `llm` are
 * config vocabulary); what runs a slot and how is @svc/providers' and @svc/engines' business.
 * Comments may mention them (as examples); string literals may not.
 */
const CORE_PROVIDER_WORDS =
  /\b(llama-server|llama\.cpp|whisper-server|whisper\.cpp|espeak-ng|flm|fastflowlm|comfyui|kokoro|chatterbox|dockerode|docker|podman)\b/i
const NODE_BUILTIN =
  /^node:|^(fs|path|os|crypto|child_process|http|https|net|stream|url|util|events|timers|zlib|assert|buffer)(\/|$)/

export function importsOf(source: string): string[] {
  const out: string[] = []
  const re =
    /(?:^|[\s;])(?:import|export)\s[^'"`]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]/gm
  for (const m of source.matchAll(re)) out.push((m[1] ?? m[2] ?? m[3])!)
  return out
}

/**
 * The specifiers a file imports only as types (`import type … from`, `export type … from`): erased
 * when compiled, so they create no runtime dependency.
 */
export function typeOnlyImportsOf(source: string): Set<string> {
  const typed = new Set<string>()
  for (const m of source.matchAll(/(?:^|[\s;])(?:import|export)\s+type\s[^'"`]*?from\s*['"]([^'"]+)['"]/gm))
    typed.add(m[1]!)
  const value = new Set(
    importsOf(source.replace(/(?:^|[\s;])(?:import|export)\s+type\s[^'"`]*?from\s*['"][^'"]+['"]/gm, '')),
  )
  for (const spec of value) typed.delete(spec)
  return typed
}

/** The string literals of a source file, comments removed first (a naive scan; enough for core's code). */
export function stringLiteralsOf(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1')
  return [...code.matchAll(/'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\]|\\.)*)`/g)].map(
    (m) => m[1] ?? m[2] ?? m[3] ?? '',
  )
}

function bare(spec: string): string {
  const parts = spec.split('/')
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!
}

export function checkBoundaries(packages: PackageInfo[]): string[] {
  const problems: string[] = []
  for (const pkg of packages) {
    const isApp = APPS.has(pkg.name)
    const allowed = ALLOWED[pkg.name]
    if (!isApp && !allowed) problems.push(`${pkg.name}: unknown package; add it to the boundary rules`)
    for (const file of pkg.files) {
      const isTest = /\.test\.tsx?$|(^|\/)test\//.test(file.path)
      const typeOnly = typeOnlyImportsOf(file.source)
      if (pkg.name === '@svc/core' && !isTest) {
        for (const literal of stringLiteralsOf(file.source)) {
          const word = CORE_PROVIDER_WORDS.exec(literal)?.[0]
          if (word)
            problems.push(
              `${file.path} names "${word}": @svc/core names no provider concept (upstream programs, engines and container engines belong in @svc/providers or @svc/engines)`,
            )
        }
      }
      for (const spec of importsOf(file.source)) {
        const where = `${file.path} imports "${spec}"`
        if (spec.startsWith('.')) {
          const target = resolve(pkg.dir, file.path, '..', spec)
          if (relative(pkg.dir, target).startsWith('..'))
            problems.push(`${where}: a relative import leaves ${pkg.name}`)
          continue
        }
        const name = bare(spec)
        // A package's own source reaches its files relatively: by name it goes through the package's
        // entry, which re-exports the importing file itself (a circle the reader cannot see).
        if (name === pkg.name && file.path.startsWith('src/') && !isTest)
          problems.push(`${where}: a package imports its own files relatively, never by its own name`)
        if (NODE_BUILTIN.test(spec)) {
          if (pkg.name === '@svc/core' && !file.path.startsWith('src/node/') && !isTest) {
            problems.push(
              `${where}: @svc/core is runtime-neutral; Node I/O belongs in src/node (the @svc/core/node entry)`,
            )
          }
          if (pkg.name === '@svc/core' && CORE_FORBIDDEN.some((re) => re.test(spec)))
            problems.push(`${where}: @svc/core imports no framework or I/O library`)
          continue
        }
        // A front end may import the API's *types* (hono/client's AppType): nothing of it is bundled.
        const apiTypes = isApp && name === '@svc/api' && typeOnly.has(spec)
        if (APPS.has(name) && name !== pkg.name && !apiTypes)
          problems.push(`${where}: nothing imports an app`)
        if (name.startsWith('@svc/') && !APPS.has(name) && name !== pkg.name && !isApp) {
          const mayTest = isTest && name === '@svc/testing'
          if (!allowed?.includes(name) && !mayTest)
            problems.push(`${where}: ${pkg.name} may import only ${allowed?.join(', ') || 'no @svc package'}`)
        }
        if (pkg.name === '@svc/core' && CORE_FORBIDDEN.some((re) => re.test(spec)))
          problems.push(`${where}: @svc/core imports no framework or I/O library`)
        if (!isApp && (name === 'hono' || name.startsWith('@hono/')))
          problems.push(`${where}: Hono stays in apps; packages take Request/Response and plain data`)
        if (name !== pkg.name && !pkg.declared.includes(name))
          problems.push(`${where}: "${name}" is not declared in package.json`)
        else if (
          !isTest &&
          !typeOnly.has(spec) &&
          pkg.devOnly.includes(name) &&
          !file.path.startsWith('test/')
        )
          problems.push(`${where}: "${name}" is a devDependency but used by source`)
      }
    }
  }
  return problems
}

function walk(dir: string, base: string, out: string[]): void {
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry === 'dist') continue
    const full = join(dir, entry)
    if (statSync(full).isDirectory()) walk(full, base, out)
    else if (/\.(ts|tsx|js|mjs)$/.test(entry) && !entry.endsWith('.d.ts')) out.push(relative(base, full))
  }
}

export function readWorkspace(root: string): PackageInfo[] {
  const packages: PackageInfo[] = []
  for (const group of ['packages', 'apps']) {
    for (const entry of readdirSync(join(root, group))) {
      const dir = join(root, group, entry)
      let manifest: {
        name: string
        dependencies?: Record<string, string>
        devDependencies?: Record<string, string>
      }
      try {
        manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
      } catch {
        continue
      }
      const files: string[] = []
      for (const sub of ['src', 'test', 'bin']) {
        try {
          walk(join(dir, sub), dir, files)
        } catch {
          // no such folder
        }
      }
      const deps = Object.keys(manifest.dependencies ?? {})
      const devDeps = Object.keys(manifest.devDependencies ?? {})
      packages.push({
        name: manifest.name,
        dir,
        declared: [...deps, ...devDeps],
        devOnly: devDeps.filter((d) => !deps.includes(d)),
        files: files.map((path) => ({ path, source: readFileSync(join(dir, path), 'utf8') })),
      })
    }
  }
  return packages
}

/**
 * The files under a package's or app's `src` that name `process.env` (in code or a comment, as `grep`
 * sees them), as `<package>: <path>`: each program's one environment reader, and nothing else.
 */
export function environmentReaders(packages: PackageInfo[]): string[] {
  return packages.flatMap((p) =>
    p.files
      .filter((f) => f.path.startsWith('src/') && /\bprocess\.env\b/.test(f.source))
      .map((f) => `${p.name}: ${f.path}`),
  )
}

/** Source files (code, not recorded data such as JSON fixtures) under `packages/<name>/src`. */
const SOURCE_FILE = /\.(ts|tsx|js|mjs|cjs|css)$/

/**
 * Files under `packages/<name>/src` longer than `limit` lines, as `lines path` (path relative to `root`),
 * longest first. Recorded data (`.json`) is not code and is not counted.
 */
export function oversizedFiles(root: string, limit = 300): string[] {
  const found: { path: string; lines: number }[] = []
  for (const entry of readdirSync(join(root, 'packages'))) {
    const src = join(root, 'packages', entry, 'src')
    const files: string[] = []
    try {
      walkAll(src, files)
    } catch {
      continue // a package without src
    }
    for (const full of files) {
      if (!SOURCE_FILE.test(full)) continue
      const text = readFileSync(full, 'utf8')
      const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
      if (lines > limit) found.push({ path: relative(root, full), lines })
    }
  }
  return found.sort((a, b) => b.lines - a.lines).map((f) => `${f.lines} ${f.path}`)
}

function walkAll(dir: string, out: string[]): void {
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry === 'dist') continue
    const full = join(dir, entry)
    if (statSync(full).isDirectory()) walkAll(full, out)
    else out.push(full)
  }
}

/** The file a relative import names: the path as written, with `.ts`/`.tsx`, or its folder's index. */
function resolveRelative(from: string, spec: string, files: Set<string>): string | undefined {
  const base = join(from, '..', spec).replace(/\.(js|mjs)$/, '')
  const candidates = [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`]
  return candidates.find((candidate) => files.has(candidate))
}

/**
 * The import cycles among the source files under `src/` of each package (tests excluded), as the
 * files of each cycle (`a.ts → b.ts → a.ts`), relative to the package. Type-only imports count too:
 * they are erased at run time, but a circle of types is still a knot a reader has to untie (and the
 * next value import along it makes it a real one). Packages cannot form a cycle among themselves:
 * the rules above allow imports in one direction only, and a package importing itself by name is
 * refused, so the graph is the relative imports inside each package.
 */
export function importCycles(packages: PackageInfo[]): string[] {
  const cycles: string[] = []
  for (const pkg of packages) {
    const sources = pkg.files.filter(
      (file) => file.path.startsWith('src/') && !/\.test\.tsx?$/.test(file.path),
    )
    const paths = new Set(sources.map((file) => file.path))
    const edges = new Map<string, string[]>()
    for (const file of sources) {
      const targets = importsOf(file.source)
        .filter((spec) => spec.startsWith('.'))
        .map((spec) => resolveRelative(file.path, spec, paths))
        .filter((target): target is string => target !== undefined)
      edges.set(file.path, [...new Set(targets)])
    }
    for (const component of stronglyConnected(edges)) {
      if (component.length === 1 && !edges.get(component[0]!)?.includes(component[0]!)) continue
      cycles.push(`${pkg.name}: ${cycleThrough(component, edges).join(' → ')}`)
    }
  }
  return cycles
}

/** Tarjan's strongly connected components of a directed graph. */
function stronglyConnected(edges: Map<string, string[]>): string[][] {
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const components: string[][] = []
  const visit = (node: string): void => {
    index.set(node, next)
    low.set(node, next++)
    stack.push(node)
    onStack.add(node)
    for (const target of edges.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target)
        low.set(node, Math.min(low.get(node)!, low.get(target)!))
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node)!, index.get(target)!))
    }
    if (low.get(node) !== index.get(node)) return
    const component: string[] = []
    let member: string
    do {
      member = stack.pop()!
      onStack.delete(member)
      component.push(member)
    } while (member !== node)
    components.push(component.sort())
  }
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) visit(node)
  return components
}

/** One concrete circle inside a component, from its first file back to it (what a reader follows). */
function cycleThrough(component: string[], edges: Map<string, string[]>): string[] {
  const inside = new Set(component)
  const start = component[0]!
  const previous = new Map<string, string>()
  const queue = [start]
  while (queue.length > 0) {
    const node = queue.shift()!
    for (const target of edges.get(node) ?? []) {
      if (!inside.has(target)) continue
      if (target === start) {
        const path = [start]
        for (let at: string | undefined = node; at !== start && at; at = previous.get(at))
          path.splice(1, 0, at)
        return [...path, start]
      }
      if (!previous.has(target)) {
        previous.set(target, node)
        queue.push(target)
      }
    }
  }
  return [...component, start]
}
