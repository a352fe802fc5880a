/**
 * The Node that svc is set up with, as scripts/install-node.sh pins it (the one place it is written):
 * `version` (24.x, what ./scripts/setup.sh installs where the box's Node is older than `min`, 22.22,
 * which is also `engines.node`). Tests check the Node they run on, spawn and install against it.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { REPO_ROOT } from './repo-root'
import { testEnv } from './test-env'

/** Absolute path of scripts/install-node.sh. */
export const INSTALL_NODE = join(REPO_ROOT, 'scripts/install-node.sh')

function pinned(name: string): string {
  const script = readFileSync(INSTALL_NODE, 'utf8')
  const value = new RegExp(`^${name}=(\\S+)$`, 'm').exec(script)?.[1]
  if (!value) throw new Error(`scripts/install-node.sh sets no ${name}`)
  return value
}

/**
 * The pinned Node: `version` like "24.22.3", its `major`; `min` ("22.22"), the oldest Node svc supports,
 * and its `minMajor`.
 */
export const NODE_PIN = {
  version: pinned('NODE_VERSION'),
  major: Number(pinned('NODE_VERSION').split('.')[0]),
  min: pinned('NODE_MIN'),
  minMajor: Number(pinned('NODE_MIN').split('.')[0]),
} as const

/**
 * The least Node major a test accepts: in CI (setup ran on the box first) the pinned one, 24; on a
 * developer's box the oldest supported, 22.
 */
export function requiredNodeMajor(): number {
  return testEnv.ci ? NODE_PIN.major : NODE_PIN.minMajor
}

/** The major of a `node --version` answer ("v24.22.3" → 24). Throws on anything else. */
export function nodeMajor(version: string): number {
  const m = /^v(\d+)\./.exec(version.trim())
  if (!m) throw new Error(`not a node --version answer: ${JSON.stringify(version)}`)
  return Number(m[1])
}

/**
 * What `<binary> --version` prints, trimmed; a bare `node` is looked up on the PATH of `env` (default:
 * the test run's own environment).
 */
export function nodeVersionOf(binary: string, env?: NodeJS.ProcessEnv): string {
  return execFileSync(binary, ['--version'], { encoding: 'utf8', ...(env && { env }) }).trim()
}
