/**
 * The Ollama API table: each row one rule of Ollama's API reference (docs/api.md of ollama/ollama,
 * quoted), its request and what an Ollama client relies on in the answer. The targets
 * (ollama.test.ts) have slot `primary` (a tiny chat GGUF on llama-server) or `wrong` (the
 * wrong-answering stand-in) as the rows' model, and beside them: `embed` (a tiny embedding GGUF),
 * `stt` and `tts` (empty), and `spare`, an llm slot that loads ref `tiny-spare` on request, with
 * `unload_after = "1h"`, which the load, unload and `keep_alive` rows drive (in order).
 */
import type { ConformanceRow } from './conformance'
import { OLLAMA_GENERATION_ROWS } from './ollama-generation.table'
import { OLLAMA_LOAD_ROWS } from './ollama-load.table'
import { OLLAMA_MODEL_ROWS } from './ollama-models.table'

/** The rows in order: the load rows first, as they drive `spare` from one state to the next. */
export const OLLAMA_TABLE: readonly ConformanceRow[] = [
  ...OLLAMA_LOAD_ROWS,
  ...OLLAMA_GENERATION_ROWS,
  ...OLLAMA_MODEL_ROWS,
]
