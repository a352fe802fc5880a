import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import {
  checkBoundaries,
  environmentReaders,
  importCycles,
  importsOf,
  oversizedFiles,
  type PackageInfo,
  readWorkspace,
  stringLiteralsOf,
} from './boundaries'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

function pkg(name: string, source: string, declared: string[] = [], path = 'src/x.ts'): PackageInfo {
  return { name, dir: `/repo/${name}`, declared, devOnly: [], files: [{ path, source }] }
}

describe('package boundaries', () => {
  it('hold for every package and app in this repository', () => {
    const workspace = readWorkspace(ROOT)
    expect(workspace.map((p) => p.name).sort()).toEqual(
      expect.arrayContaining([
        '@svc/api',
        '@svc/auth',
        '@svc/cli',
        '@svc/core',
        '@svc/dispatcher',
        '@svc/providers',
        '@svc/testing',
      ]),
    )
    expect(checkBoundaries(workspace)).toEqual([])
  })

  it('finds the imports of a file in every spelling', () => {
    const src = `import a from 'a'\nimport { b } from "b"\nimport type { C } from 'c/d'\nexport * from './e'\nconst f = await import('f')\nimport 'g'\n`
    expect(importsOf(src)).toEqual(['a', 'b', 'c/d', './e', 'f', 'g'])
  })

  // Each of these adds one forbidden import; the checker must name it.
  it.each([
    [
      'core importing a package',
      pkg('@svc/core', `import { x } from '@svc/providers'`, ['@svc/providers']),
      'may import only',
    ],
    ['core importing hono', pkg('@svc/core', `import { Hono } from 'hono'`, ['hono']), 'no framework'],
    [
      'core importing child_process',
      pkg('@svc/core', `import { spawn } from 'node:child_process'`),
      'runtime-neutral',
    ],
    [
      "core's Node entry importing child_process",
      pkg('@svc/core', `import { spawn } from 'node:child_process'`, [], 'src/node/spawn.ts'),
      'no framework or I/O library',
    ],
    [
      'core importing the engines',
      pkg('@svc/core', `import { findEngine } from '@svc/engines'`, ['@svc/engines']),
      'may import only',
    ],
    [
      'core importing dockerode',
      pkg('@svc/core', `import Docker from 'dockerode'`, ['dockerode']),
      'no framework or I/O library',
    ],
    [
      'core naming an engine binary',
      pkg('@svc/core', `export const ENGINES = ['llama-server', 'whisper-server'] as const`),
      'names no provider concept',
    ],
    [
      'core naming a container engine',
      pkg('@svc/core', `const socket = "/var/run/docker.sock"`, [], 'src/node/x.ts'),
      'names no provider concept',
    ],
    [
      'core main entry doing I/O',
      pkg('@svc/core', `import { readFile } from 'node:fs/promises'`),
      'runtime-neutral',
    ],
    [
      'auth importing providers',
      pkg('@svc/auth', `import { x } from '@svc/providers'`, ['@svc/providers']),
      'may import only @svc/core',
    ],
    [
      'dispatcher importing auth',
      pkg('@svc/dispatcher', `import { x } from '@svc/auth'`, ['@svc/auth']),
      'may import only @svc/core',
    ],
    [
      'a package importing an app',
      pkg('@svc/providers', `import { createApp } from '@svc/api'`, ['@svc/api']),
      'nothing imports an app',
    ],
    [
      'an app importing an app',
      pkg('@svc/cli', `import { createApp } from '@svc/api'`, ['@svc/api']),
      'nothing imports an app',
    ],
    [
      'Hono in a package',
      pkg('@svc/dispatcher', `import type { Context } from 'hono'`, ['hono']),
      'Hono stays in apps',
    ],
    ['an undeclared dependency', pkg('@svc/auth', `import x from 'left-pad'`), 'not declared'],
    [
      'a relative import into another package',
      pkg('@svc/auth', `import { x } from '../../core/src/index'`),
      'leaves @svc/auth',
    ],
    [
      'a package importing itself by name',
      pkg('@svc/core', `import { SvcError } from '@svc/core'`),
      'never by its own name',
    ],
    [
      'a package importing its own subpath entry by name',
      pkg('@svc/core', `import { atomicWrite } from '@svc/core/node'`, [], 'src/slot/x.ts'),
      'never by its own name',
    ],
  ])('fails on %s', (_name, info, message) => {
    const problems = checkBoundaries([info])
    expect(problems.join('\n')).toContain(message)
  })

  it('lets core mention engines in comments and tests, never in its code', () => {
    const commented = `/** e.g. "llama-server exited with code 1" */\n// docker pulls\nexport const A = 'ready'`
    expect(checkBoundaries([pkg('@svc/core', commented)])).toEqual([])
    expect(checkBoundaries([pkg('@svc/core', `it('llama-server', () => {})`, [], 'src/x.test.ts')])).toEqual(
      [],
    )
    expect(stringLiteralsOf(`const a = 'x' // 'y'\nconst b = "z"; const c = \`w\``)).toEqual(['x', 'z', 'w'])
  })

  it('keeps every source file in packages/*/src at 300 lines or fewer', () => {
    expect(oversizedFiles(ROOT)).toEqual([])
  })

  it("lets a front end import the API's types, and nothing else of an app", () => {
    const front = (source: string) => pkg('@svc/dashboard', source, ['@svc/api'])
    expect(checkBoundaries([front(`import type { AppType } from '@svc/api'`)])).toEqual([])
    expect(checkBoundaries([front(`import { createApp } from '@svc/api'`)]).join()).toContain(
      'nothing imports an app',
    )
    expect(
      checkBoundaries([
        front(`import type { AppType } from '@svc/api'\nimport { x } from '@svc/api'`),
      ]).join(),
    ).toContain('nothing imports an app')
  })

  it('lets core use Node I/O in its src/node entry and apps import any package', () => {
    expect(
      checkBoundaries([
        pkg('@svc/core', `import { open } from 'node:fs/promises'`, [], 'src/node/atomic-write.ts'),
      ]),
    ).toEqual([])
    expect(
      checkBoundaries([pkg('@svc/api', `import { createAuth } from '@svc/auth'`, ['@svc/auth'])]),
    ).toEqual([])
  })

  it("reads the environment in each program's one reader: the two servers, the CLI and the test tooling", () => {
    expect(environmentReaders(readWorkspace(ROOT)).sort()).toEqual([
      '@svc/api: src/serve.ts',
      '@svc/chat: src/server/serve.ts',
      '@svc/cli: src/context.ts',
      // The test run's own settings (CI, where Chromium is…): a program of its own, see test-env.ts.
      '@svc/testing: src/test-env.ts',
    ])
    const reader = pkg('@svc/core', `export const dir = process.env.HOME`)
    expect(environmentReaders([reader])).toEqual(['@svc/core: src/x.ts'])
    expect(environmentReaders([pkg('@svc/core', `const processEnvValue = 1`)])).toEqual([])
  })

  it('finds no import cycle among the source files of any package (type-only imports count)', () => {
    expect(importCycles(readWorkspace(ROOT))).toEqual([])
  })

  it('finds an import cycle, a type-only one and one through an index, and names its files', () => {
    const files = (entries: Record<string, string>): PackageInfo => ({
      name: '@svc/core',
      dir: '/repo/core',
      declared: [],
      devOnly: [],
      files: Object.entries(entries).map(([path, source]) => ({ path, source })),
    })
    const circle = files({
      'src/a.ts': `import { b } from './b'`,
      'src/b.ts': `import type { C } from './c'`,
      'src/c.ts': `export * from './a'`,
      'src/d.ts': `import { a } from './a'`,
    })
    expect(importCycles([circle])).toEqual(['@svc/core: src/a.ts → src/b.ts → src/c.ts → src/a.ts'])
    const viaIndex = files({
      'src/slot/index.ts': `export * from './slot'`,
      'src/slot/slot.ts': `import type { X } from '../x'`,
      'src/x.ts': `import { Slot } from './slot'`,
    })
    expect(importCycles([viaIndex])).toHaveLength(1)
    const tree = files({ 'src/a.ts': `import { b } from './b'`, 'src/b.ts': `export const b = 1` })
    expect(importCycles([tree])).toEqual([])
  })
})
