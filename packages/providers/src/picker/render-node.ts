/** A GPU's render node (`/dev/dri/renderD128`) and whose it is: what detection and the memory probe share. */
import type { GpuVendor } from '../manifest/manifest'

export interface RenderNode {
  path: string
  vendor: GpuVendor | 'unknown'
}
