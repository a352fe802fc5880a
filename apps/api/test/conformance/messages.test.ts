/** The Messages table (messages.table.ts) against the real llama-server and the wrong-answering stand-in. */
import { describe } from 'vitest'
import { runConformance } from './conformance'
import { MESSAGES_TABLE } from './messages.table'
import { conformanceTargets } from './targets'

const targets = conformanceTargets()

describe.skipIf(!targets.available)('Messages conformance, real llama-server', () => {
  runConformance(MESSAGES_TABLE, 'llama-server', () => targets.real)
})

describe('Messages conformance, the wrong-answering stand-in', () => {
  runConformance(MESSAGES_TABLE, 'wrong-engine', () => targets.wrong)
})
