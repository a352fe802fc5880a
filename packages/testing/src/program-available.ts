/** A real program a test runs (Caddy, espeak-ng, ffmpeg), looked up the way the code under test does. */
import { missingPart } from './require-part'
import { findOnPath } from './which'

/**
 * Whether `program` is on PATH (or in the sbin directories); when it is not, reports it with
 * {@link missingPart} and `hint` (a failure in CI, a loud skip elsewhere), for `describe.skipIf`.
 */
export function programAvailable(program: string, hint: string): boolean {
  if (findOnPath(program)) return true
  missingPart(program, hint)
  return false
}
