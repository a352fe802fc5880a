/**
 * Tests use real parts (llama-server, dockerd, Caddy, Chromium). When one is missing:
 * in CI (`CI` set to anything but empty, `0` or `false`: `CI=true`, `CI=1`) that is a failure; on a
 * developer's box the test skips with a loud message.
 */

import { testEnv } from './test-env'

/**
 * Reports a missing real part: throws in CI; elsewhere warns loudly and returns the skip reason. A
 * test that got a skip must not pass silently: skip it with the reason (`describe.skipIf`,
 * `ctx.skip(reason)` — see {@link skipUnless}).
 */
export function missingPart(
  part: string,
  hint: string,
  { ci }: { ci: boolean } = testEnv,
): { skip: true; reason: string } {
  const reason = `${part} is not available: ${hint}`
  if (ci) throw new Error(`[CI] ${reason}`)
  console.warn(`\n!!! SKIPPING: ${reason}\n`)
  return { skip: true, reason }
}

/**
 * Inside a test: the value when the part is there, otherwise the test is skipped with the reason
 * (vitest's `ctx.skip`, which throws). Replaces `if (!part) return`, which reports "passed".
 */
export function skipUnless<T>(
  ctx: { skip(note?: string): never },
  value: T | undefined | null | { skip: true; reason: string },
  reason = 'a real part this test needs is missing (see the warning above)',
): T {
  if (value === undefined || value === null) ctx.skip(reason)
  if (typeof value === 'object' && value !== null && 'skip' in value && value.skip === true)
    ctx.skip(value.reason)
  return value as T
}
