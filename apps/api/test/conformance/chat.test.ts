/** The OpenAI chat/completions table (chat.table.ts) against the real llama-server and the wrong-answering stand-in. */
import { describe } from 'vitest'
import { CHAT_TABLE } from './chat.table'
import { runConformance } from './conformance'
import { conformanceTargets } from './targets'

const targets = conformanceTargets()

describe.skipIf(!targets.available)('chat/completions conformance, real llama-server', () => {
  runConformance(CHAT_TABLE, 'llama-server', () => targets.real)
})

describe('chat/completions conformance, the wrong-answering stand-in', () => {
  runConformance(CHAT_TABLE, 'wrong-engine', () => targets.wrong)
})
