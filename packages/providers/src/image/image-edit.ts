/**
 * The edit half of the image translator (`/v1/images/edits`, `/v1/images/variations`): which edit
 * template a request takes, the size it gets when it names none, and the uploads its graph reads.
 *
 * - Template: `<workflow>.inpaint` when there is a mask, else `<workflow>.img2img` (variations too,
 *   with an empty prompt), from `workflows/`.
 * - Size: absent (or `auto`) → the image's aspect ratio with its longer side at the model's native
 *   size (512 for SD 1.5 and SDXL Turbo, 1024 for Flux), each side floored to the model's multiple
 *   (and at least 64 px).
 * - Uploads: `POST /upload/image` into ComfyUI's `input/svc/` as `edit-<prompt id>.<ext>` and
 *   `edit-<prompt id>-mask.png`, named per request so two requests never read each other's files.
 *   The mask goes up as it came: LoadImageMask `alpha` computes ComfyUI's MASK = 1 − alpha/255, so
 *   OpenAI's "transparent = edit" already is ComfyUI's "1.0 = regenerate" (protocol.md §9.8).
 */

import { uploadInput } from './comfy-client'
import type { EditJob } from './image-edit-request'
import type { WorkflowTemplate, WorkflowValues } from './workflow-template'

/** Where uploads go in ComfyUI's input folder. */
export const UPLOAD_SUBFOLDER = 'svc'

/** The template id an edit takes for a model whose generation template is `workflow`. */
export function editTemplateId(workflow: string, job: Pick<EditJob, 'mask'>): string {
  return `${workflow}.${job.mask ? 'inpaint' : 'img2img'}`
}

/** The output size when the request names none: the image's shape at the model's native size. */
export function editSize(
  image: { width: number; height: number },
  template: WorkflowTemplate,
): { width: number; height: number } {
  const native = Math.max(template.nativeSize.width, template.nativeSize.height)
  const scale = native / Math.max(image.width, image.height)
  const m = template.meta.size_multiple
  // at least 64 px a side, as a requested size must be
  const side = (px: number) => Math.max(Math.ceil(64 / m) * m, Math.floor((px * scale) / m) * m)
  return { width: side(image.width), height: side(image.height) }
}

/** Uploads the job's image (and mask) and answers the graph values that name them. */
export async function uploadEditInputs(
  base: URL,
  job: EditJob,
  promptId: string,
  signal: AbortSignal,
): Promise<Pick<WorkflowValues, 'image' | 'mask' | 'denoise'>> {
  const ext = job.image.facts.format === 'jpeg' ? 'jpg' : job.image.facts.format
  const [image, mask] = await Promise.all([
    uploadInput(
      base,
      { bytes: job.image.bytes, filename: `edit-${promptId}.${ext}`, subfolder: UPLOAD_SUBFOLDER },
      signal,
    ),
    job.mask
      ? uploadInput(
          base,
          { bytes: job.mask.bytes, filename: `edit-${promptId}-mask.png`, subfolder: UPLOAD_SUBFOLDER },
          signal,
        )
      : undefined,
  ])
  return {
    image,
    ...(mask ? { mask } : {}),
    ...(job.strength !== undefined ? { denoise: job.strength } : {}),
  }
}
