import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { brotliCompressSync, gzipSync } from 'node:zlib'
import preact from '@preact/preset-vite'
import { defineConfig, type Plugin } from 'vite'

/**
 * Writes `.gz` and `.br` beside every text asset, so the server sends them precompressed (nothing is
 * compressed per request), and prints the initial JavaScript's gzipped size (the budget docs/chat.md gives).
 */
function precompress(): Plugin {
  let outDir = 'dist'
  return {
    name: 'svc-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = config.build.outDir
    },
    closeBundle() {
      const assets = join(outDir, 'assets')
      let initialJs = 0
      const html = readFileSync(join(outDir, 'index.html'), 'utf8')
      for (const name of readdirSync(assets)) {
        if (!/\.(js|css|svg|json)$/.test(name)) continue
        const bytes = readFileSync(join(assets, name))
        const gz = gzipSync(bytes, { level: 9 })
        writeFileSync(join(assets, `${name}.gz`), gz)
        writeFileSync(join(assets, `${name}.br`), brotliCompressSync(bytes))
        // Initial = referenced by index.html (the entry and its modulepreloads), not lazy chunks.
        if (name.endsWith('.js') && html.includes(`assets/${name}`)) initialJs += gz.byteLength
      }
      process.stdout.write(`svc chat: initial JavaScript ${(initialJs / 1024).toFixed(1)} KB gzipped\n`)
    },
  }
}

// `base: './'`: every URL in the build is relative, so the same build works at `/` and under `/chat/`.
export default defineConfig({
  base: './',
  plugins: [preact(), precompress()],
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', sourcemap: false },
})
