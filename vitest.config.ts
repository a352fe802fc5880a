import { defineConfig } from 'vitest/config'

// Two projects: `unit` (pure tests beside the code, `src/**`) and `integration` (tests in `test/`
// directories that start real servers and programs). `pnpm test:unit` runs the first only.
const unit = ['packages/*/src/**/*.test.{ts,tsx}', 'apps/*/src/**/*.test.{ts,tsx}']
const integration = [
  'packages/*/test/**/*.test.{ts,tsx}',
  'apps/*/test/**/*.test.{ts,tsx}',
  'test/**/*.test.ts',
]

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'unit', include: unit } },
      { extends: true, test: { name: 'integration', include: integration } },
    ],
  },
})
