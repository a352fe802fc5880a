import preact from '@preact/preset-vite'
import { defineConfig } from 'vite'

// The API serves dist/ at `/` (hashed assets under /assets/ cached immutably, client routes fall
// back to index.html), so the base is absolute. `pnpm dev` proxies the API for development.
export default defineConfig({
  plugins: [preact()],
  base: '/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    reportCompressedSize: true,
    chunkSizeWarningLimit: 300,
  },
  server: {
    proxy: {
      '/api': { target: process.env.SVC_API_URL ?? 'http://127.0.0.1:8080', changeOrigin: false },
      '/v1': { target: process.env.SVC_API_URL ?? 'http://127.0.0.1:8080', changeOrigin: false },
    },
  },
})
