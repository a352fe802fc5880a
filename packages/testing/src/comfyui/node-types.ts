/**
 * What the stand-in's node runners pass around: the value of a node's output slot, what a runner
 * gets (`NodeRun`) and what it answers (`NodeResult`). A leaf, so the runners of the generation
 * nodes (node-runners.ts) and of the edit nodes (edit-nodes.ts) share it without a cycle.
 */
import type { ComfyDirs } from './input-files'
import type { NodeSchema } from './node-schemas'
import type { LatentSource, Mask, Picture } from './pixels'
import type { PyDict, PyValue } from './py-values'

export type NodeValue =
  | { kind: 'latent'; width: number; height: number; batch: number; seed?: bigint; source?: LatentSource }
  | {
      kind: 'image'
      width: number
      height: number
      batch: number
      seed?: bigint
      source?: LatentSource
      /** Pixels as loaded (LoadImage, ImageScale): saved as they are. */
      picture?: Picture
    }
  | { kind: 'mask'; mask: Mask }
  | { kind: 'sigmas'; steps: number }
  | { kind: 'noise'; seed: bigint }
  | { kind: 'object'; type: string }

export interface NodeRun {
  id: string
  schema: NodeSchema
  /** Literal inputs, as validation coerced them. */
  inputs: Record<string, PyValue>
  /** Linked inputs: the value of the source node's output slot. */
  links: Record<string, NodeValue>
  prompt: PyDict
  extraData: PyDict
  dirs: ComfyDirs
  /** Called once before a sampler's first step (where `failExecution` strikes). */
  beginSampling(): void
  /** One sampler step: sends `progress`, waits `stepDelayMs`, throws when interrupted. */
  step(value: number, max: number): Promise<void>
}

export interface NodeResult {
  outputs: NodeValue[]
  /** The node's UI output (`{images: [...]}`) for history and the `executed` event. */
  ui?: PyDict
}
