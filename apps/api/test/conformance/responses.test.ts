/** The Responses table (responses.table.ts) against the real llama-server and the wrong-answering stand-in. */
import { describe } from 'vitest'
import { runConformance } from './conformance'
import { RESPONSES_TABLE } from './responses.table'
import { conformanceTargets } from './targets'

const targets = conformanceTargets()

describe.skipIf(!targets.available)('Responses conformance, real llama-server', () => {
  runConformance(RESPONSES_TABLE, 'llama-server', () => targets.real)
})

describe('Responses conformance, the wrong-answering stand-in', () => {
  runConformance(RESPONSES_TABLE, 'wrong-engine', () => targets.wrong)
})
