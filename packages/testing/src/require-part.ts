/**
 * Tests use real parts (llama-server, dockerd, Caddy, Chromium). When one is missing:
 * in CI (`CI=true`) that is a failure; on a developer's box the test skips with a loud message.
 */
export function missingPart(part: string, hint: string): { skip: true; reason: string } {
  const reason = `${part} is not available: ${hint}`
  if (process.env.CI === 'true') throw new Error(`[CI] ${reason}`)
  console.warn(`\n!!! SKIPPING: ${reason}\n`)
  return { skip: true, reason }
}
