#!/usr/bin/env node
// Bundles a server app (its TypeScript, the workspace packages it imports, and their npm
// dependencies) into plain JavaScript that node runs with no loader: what `pnpm build` makes for
// apps/api, apps/chat (its server) and apps/cli. Run from the app's directory:
//
//   node ../../scripts/build-server.mjs --outdir dist src/serve.ts [more entries]
//
// Decisions (each one keeps the bundle behaving as the source does under tsx):
// - Native addons stay external (a `.node` binary cannot be bundled); node resolves them from the
//   app's own node_modules, so the app must declare each one it uses (checked here).
// - `import.meta.url` keeps meaning the file it is written in: every source file that reads it gets
//   its own URL, computed from the bundle's location, so `new URL('../../manifests/x', import.meta.url)`
//   still finds the checkout's files. CommonJS `__dirname`/`__filename` likewise.
// - Two dockerode dependencies that svc never uses on its local socket (ssh2 for ssh:// hosts, with a
//   16 MB WebAssembly heap; grpc for BuildKit sessions, protobufjs for BuildKit builds), the OpenTelemetry API that prom-client
//   reads only with exemplars on, undici (the dispatcher's upstream connections, used from the
//   first relayed request) and the Hugging Face Hub's clients (a Hub name, a Hub search, a GGUF's
//   quantization label) are loaded on first use instead of at start (see DEFERRED); packages
//   imported with `await import()` only (the VAD's, see LAZY) stay dynamic imports of node_modules.
// - The bundle is ASCII (see below): V8 then keeps its source at one byte a character.
// - Not minified: stack traces keep readable names and lines.
// - Writes `<outdir>/inputs.json` (the files the bundle was made from) so a test can tell a stale
//   build (`@svc/testing`'s `ensureBuilt`).
import { chmod, readFile, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join, relative, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { build } from 'esbuild'

/** Packages with a native binary: never bundled. */
const NATIVE = ['@node-rs/argon2', 'better-sqlite3', 'cpu-features']

/** `require(x)` inside `importer` that is deferred until the first use of what it exports (`shim(where)`). */
const DEFERRED = [
  // docker-modem's ssh.js reads `require('ssh2').Client` at its top, so deferring ssh2 itself would
  // load it at once: the agent factory that modem.js imports is what waits for an ssh:// host.
  {
    importer: /\/docker-modem\/lib\/modem\.js$/,
    request: './ssh',
    shim: (r) => `module.exports = function sshAgent(...args) { return require(${r}).apply(this, args) }`,
  },
  // prom-client's process CPU counters read OpenTelemetry's active span only with exemplars on,
  // which svc never turns on: 51 modules that a process would otherwise load for nothing.
  {
    importer: /\/prom-client\/lib\/metrics\/processCpuTotal\.js$/,
    request: '@opentelemetry/api',
    shim: (r) =>
      `module.exports = { get trace() { return require(${r}).trace }, get context() { return require(${r}).context } }`,
  },
  {
    importer: /\/dockerode\/lib\/docker\.js$/,
    request: './session',
    shim: (r) => `module.exports = function withSession(...args) { return require(${r}).apply(this, args) }`,
  },
  // BuildKit builds (protobufjs and its .proto files: ~0.3 MB of source): docker.js requires it inside
  // the build method, so the shim is evaluated only there, and requires it from node_modules then.
  {
    importer: /\/dockerode\/lib\/docker\.js$/,
    request: './buildkit',
    shim: (r) => `module.exports = require(${r})`,
  },
  // The dispatcher's upstream pools (undici): its index loads all of undici (fetch, WebSocket, caches,
  // mocks: ~1 MB of source, ~10 MB of an idle process) and an API with no slot loaded relays nothing.
  // Every name undici exports (read here, at build time) is a getter that requires it on first use.
  {
    importer: /\/packages\/dispatcher\/src\/[^/]+\.ts$/,
    request: 'undici',
    shim: lazyModule,
  },
  // The Hugging Face Hub's clients: `hf.co/…` names and Hub search (@huggingface/hub), a GGUF's
  // quantization label (@huggingface/gguf), and the task tables both import (@huggingface/tasks):
  // ~0.4 MB of source, a fifth of the bundle, that a server naming no Hub model never runs.
  ...['@huggingface/hub', '@huggingface/gguf'].map((request) => ({
    importer: /\/packages\/providers\/src\/models\/.+\.ts$/,
    request,
    shim: lazyModule,
  })),
]

/**
 * Packages a source file imports only with `await import()` on first use (the voice-activity
 * detector's ONNX runtime and Silero model: ~0.4 MB of source that esbuild would otherwise inline,
 * which V8 keeps in every process whether or not it ever streams a transcription). The import stays
 * a dynamic one, pointed at the real file in node_modules (where svc runs from its checkout).
 */
const LAZY = [
  'onnxruntime-web',
  '@ricky0123/vad-web',
  // OpenTelemetry's SDK and OTLP exporter (apps/api/src/telemetry/load-tracing.ts): imported only when
  // an OTLP endpoint is set, so a server without traces neither loads nor keeps their source.
  '@opentelemetry/api',
  '@opentelemetry/core',
  '@opentelemetry/resources',
  '@opentelemetry/sdk-trace',
  '@opentelemetry/exporter-trace-otlp-proto',
]

/** The shim of a module whose exports (read from `real` at build time) each wait for their first use. */
function lazyModule(where, real) {
  return lazyExports(Object.keys(createRequire(import.meta.url)(real)), where)
}

/** A module whose every export is read from `require(where)` when first asked for. */
function lazyExports(names, where) {
  const getters = names.map(
    (n) => `get ${JSON.stringify(n)}() { return require(${where})[${JSON.stringify(n)}] }`,
  )
  return `module.exports = {\n  ${getters.join(',\n  ')}\n}`
}

const { values, positionals } = parseArgs({
  options: { outdir: { type: 'string', default: 'dist' } },
  allowPositionals: true,
})
const appDir = process.cwd()
const outdir = resolve(appDir, values.outdir)
const pkg = JSON.parse(await readFile(join(appDir, 'package.json'), 'utf8'))
const declared = new Set(Object.keys(pkg.dependencies ?? {}))
const fromBundle = (file) => JSON.stringify(relative(outdir, file))

/** @type {import('esbuild').Plugin} */
const svcServer = {
  name: 'svc-server',
  setup(b) {
    b.onResolve({ filter: /^[^.]/ }, (args) => {
      const name = NATIVE.find((n) => args.path === n || args.path.startsWith(`${n}/`))
      if (!name) return undefined
      // cpu-features is ssh2's optional speed-up, loaded in a try block: absent is fine.
      if (name !== 'cpu-features' && !declared.has(name)) {
        return {
          errors: [
            {
              text: `${name} is a native addon: declare it in ${pkg.name}'s dependencies so the bundle finds it`,
            },
          ],
        }
      }
      return { path: args.path, external: true }
    })
    b.onResolve({ filter: /^[^.]/ }, async (args) => {
      if (args.kind !== 'dynamic-import' || args.pluginData === 'real') return undefined
      if (!LAZY.some((n) => args.path === n || args.path.startsWith(`${n}/`))) return undefined
      const real = await b.resolve(args.path, {
        kind: 'dynamic-import',
        resolveDir: args.resolveDir,
        pluginData: 'real',
      })
      if (real.errors.length > 0) return { errors: real.errors }
      const path = relative(outdir, real.path)
      return { path: path.startsWith('.') ? path : `./${path}`, external: true }
    })
    for (const d of DEFERRED) {
      b.onResolve({ filter: new RegExp(`^${d.request.replace(/[.]/g, '\\.')}$`) }, async (args) => {
        if (!d.importer.test(args.importer)) return undefined
        const real = await b.resolve(args.path, {
          kind: 'require-call',
          resolveDir: args.resolveDir,
          pluginData: 'real',
        })
        if (real.errors.length > 0) return { errors: real.errors }
        return { path: real.path, namespace: 'svc-deferred', pluginData: d }
      })
    }
    // `node:http` is required, not imported: Node 24's ES module view of a built-in reads every export
    // at the first import, and node:http's lazy `WebSocket` getter then loads Node's whole fetch
    // (undici, ~10 MB of an idle process) at start. Through require() the getter stays unread.
    b.onResolve({ filter: /^(node:)?http$/ }, (args) =>
      args.namespace === 'svc-builtin' ? undefined : { path: 'node:http', namespace: 'svc-builtin' },
    )
    b.onLoad({ filter: /.*/, namespace: 'svc-builtin' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)})`,
      loader: 'js',
    }))
    // The deferred module is not bundled at all but required from node_modules (the checkout's, where
    // svc runs) on first use: its source then costs no memory in a process that never uses it. The
    // path goes through a variable so esbuild leaves the require to node.
    b.onLoad({ filter: /.*/, namespace: 'svc-deferred' }, (args) => {
      const path = fromBundle(args.path)
      return {
        contents: `var where = ${path.startsWith('"..') ? path : `"./${JSON.parse(path)}"`};\n${args.pluginData.shim('where', args.path)}`,
        resolveDir: dirname(args.path),
        loader: 'js',
      }
    })
    b.onLoad({ filter: /\.(c|m)?(j|t)s$/ }, async (args) => {
      let text = await readFile(args.path, 'utf8')
      if (text.includes('import.meta.url')) {
        text = text.replaceAll('import.meta.url', `new URL(${fromBundle(args.path)}, import.meta.url).href`)
      }
      if (/\b__(dirname|filename)\b/.test(text)) {
        text = `var __filename = __svcPath(${fromBundle(args.path)}), __dirname = __svcPath(${fromBundle(dirname(args.path))});\n${text}`
      }
      return { contents: text, loader: /\.(c|m)?ts$/.test(args.path) ? 'ts' : 'js' }
    })
  },
}

// A clean directory: chunk names change with their content.
await rm(outdir, { recursive: true, force: true })
const result = await build({
  entryPoints: positionals,
  outdir,
  bundle: true,
  splitting: positionals.length > 1,
  platform: 'node',
  format: 'esm',
  target: 'node22', // engines.node: the oldest Node svc supports
  plugins: [svcServer],
  metafile: true,
  logLevel: 'warning',
  // CommonJS dependencies call require() for node's own modules; an ES module has none of its own.
  banner: {
    js: [
      "import { createRequire as __svcCreateRequire } from 'node:module'",
      "import { fileURLToPath as __svcFileURLToPath } from 'node:url'",
      'const require = __svcCreateRequire(import.meta.url)',
      'const __svcPath = (p) => __svcFileURLToPath(new URL(p, import.meta.url))',
      '',
    ].join(';\n'),
  },
  define: { 'globalThis.SVC_BUILT': 'true' },
})
// esbuild writes strings, templates and regular expressions in ASCII (its default charset) but keeps
// the comments it carries over as written; one `→` in a comment makes V8 hold the whole bundle's
// source (which it keeps for the process's life) as UTF-16, twice the bytes: ~3 MB of the API's idle
// heap. So what is left outside ASCII, in comments only, is written as a `\u` escape.
for (const file of Object.keys(result.metafile.outputs)) {
  if (!file.endsWith('.js')) continue
  const text = await readFile(file, 'utf8')
  const ascii = text.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
  if (ascii !== text) await writeFile(file, ascii)
}
// Entries start with `#!/usr/bin/env node` when their source does: runnable through a symlink.
for (const [file, out] of Object.entries(result.metafile.outputs)) {
  if (out.entryPoint && positionals.includes(out.entryPoint)) await chmod(file, 0o755)
}
// The workspace's files, this script and the lockfile (which pins every bundled dependency).
const root = resolve(dirname(new URL(import.meta.url).pathname), '..')
const inputs = [
  ...Object.keys(result.metafile.inputs).filter((p) => !p.includes(':') && !p.includes('node_modules/')),
  join(root, 'scripts/build-server.mjs'),
  join(root, 'pnpm-lock.yaml'),
]
await writeFile(
  join(outdir, 'inputs.json'),
  `${JSON.stringify({ builtAt: new Date().toISOString(), inputs: inputs.map((p) => relative(outdir, resolve(p))) }, null, 1)}\n`,
)
const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0)
process.stdout.write(
  `${pkg.name}: ${positionals.join(', ')} → ${relative(appDir, outdir)}/ (${(bytes / 1024).toFixed(0)} KB)\n`,
)
