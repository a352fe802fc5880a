/**
 * Which slot loads a ref on request (pure): a slot whose `accepts` lists the ref first; else the
 * built-in slot of the model's role — a chat model into `primary`, an embedding model into `embed`,
 * whisper into `stt`, a voice into `tts`, an image model into `img` — when that slot loads on request
 * and has no `accepts` list of its own. A model not on disk goes only to a slot that may pull it.
 */
import type { ModelEntry } from '../models'
import type { SlotConfig } from '../slot-config'

export function roleSlot(entry: ModelEntry): string | undefined {
  switch (entry.provider) {
    case 'llm':
      return entry.role === 'embed' ? 'embed' : entry.role === 'rerank' ? undefined : 'primary'
    case 'stt':
      return 'stt'
    case 'tts':
      return 'tts'
    case 'image':
      return 'img'
    default:
      return undefined
  }
}

/**
 * The slot to load `ref` into, among `configs` whose load on request is on (`loadsOnRequest`);
 * undefined when none takes it. `entry` is the ref's model entry (undefined when svc does not know it).
 */
export function routeRef(
  ref: string,
  entry: ModelEntry | undefined,
  configs: readonly SlotConfig[],
  loadsOnRequest: (config: SlotConfig) => boolean,
): string | undefined {
  const onDisk = entry?.path !== undefined || entry?.source === 'local'
  const takes = (c: SlotConfig) => loadsOnRequest(c) && (onDisk || c.demand.pullOnRequest)
  const listed = configs.find((c) => c.demand.accepts?.includes(ref) && takes(c))
  if (listed) return listed.name
  if (!entry) return undefined
  const name = roleSlot(entry)
  const home = configs.find((c) => c.name === name)
  return home && !home.demand.accepts && takes(home) ? home.name : undefined
}
