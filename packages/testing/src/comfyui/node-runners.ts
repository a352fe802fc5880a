/**
 * What each node "does" in the stand-in. Loaders, text encoders, guiders and sampler pickers yield
 * opaque objects; latent nodes carry size and batch; samplers carry the seed (and report one
 * `progress` per step); VAEDecode turns a latent into images; SaveImage / PreviewImage render real
 * PNGs and name them exactly as ComfyUI's `folder_paths.get_save_image_path` does.
 */
import { randomInt } from 'node:crypto'
import { mkdir, readdir, writeFile } from 'node:fs/promises'
import { posix, relative, resolve, sep } from 'node:path'
import { runEditNode } from './edit-nodes'
import { WIDGET_TYPES } from './node-schemas'
import type { NodeResult, NodeRun, NodeValue } from './node-types'
import { composeImage, pictureScanlines } from './pixels'
import { encodePng } from './png'
import { type PyDict, PyException, PyFloat, pyTypeName, toPyJson } from './py-values'

export type { NodeResult, NodeRun, NodeValue } from './node-types'

function linked<K extends NodeValue['kind']>(
  run: NodeRun,
  name: string,
  kind: K,
): Extract<NodeValue, { kind: K }> {
  const v = run.links[name]
  if (v?.kind === kind) return v as Extract<NodeValue, { kind: K }>
  throw new PyException('TypeError', `stand-in: ${run.schema.name}.${name} did not receive a ${kind}`)
}

function int(run: NodeRun, name: string): bigint {
  const v = run.inputs[name]
  return typeof v === 'number' || typeof v === 'bigint' ? BigInt(v) : 0n
}

/** A literal where a link type is expected passes validation and fails here, as in ComfyUI. */
function checkLinks(run: NodeRun): void {
  for (const [name, info] of run.schema.inputs) {
    if (typeof info.type !== 'string' || WIDGET_TYPES.has(info.type) || !(name in run.inputs)) continue
    throw new PyException(
      'AttributeError',
      `'${pyTypeName(run.inputs[name]!)}' object has no attribute for ${info.type} (input '${name}' of ${run.schema.name} needs a link)`,
    )
  }
}

async function sample(run: NodeRun, steps: number): Promise<void> {
  run.beginSampling()
  for (let i = 0; i < steps; i++) await run.step(i + 1, steps)
}

function objects(run: NodeRun): NodeResult {
  return { outputs: run.schema.outputs.map((type) => ({ kind: 'object', type })) }
}

/** Runs one node. Throws `PyException` for what ComfyUI would raise. */
export async function runNode(run: NodeRun): Promise<NodeResult> {
  checkLinks(run)
  switch (run.schema.name) {
    case 'EmptyLatentImage':
    case 'EmptySD3LatentImage': {
      // torch.zeros([batch, C, height // 8, width // 8]): step is not enforced, sizes are floored
      const width = Number(int(run, 'width') / 8n) * 8
      const height = Number(int(run, 'height') / 8n) * 8
      return { outputs: [{ kind: 'latent', width, height, batch: Number(int(run, 'batch_size')) }] }
    }
    case 'KSampler': {
      const latent = linked(run, 'latent_image', 'latent')
      await sample(run, Number(int(run, 'steps')))
      const denoise = run.inputs.denoise instanceof PyFloat ? run.inputs.denoise.value : 1
      const source = latent.source && { ...latent.source, denoise }
      return { outputs: [{ ...latent, seed: int(run, 'seed'), source }] }
    }
    case 'KSamplerAdvanced': {
      const latent = linked(run, 'latent_image', 'latent')
      const end = Math.min(Number(int(run, 'end_at_step')), Number(int(run, 'steps')))
      await sample(run, Math.max(0, end - Number(int(run, 'start_at_step'))))
      return { outputs: [{ ...latent, seed: int(run, 'noise_seed') }] }
    }
    case 'SamplerCustom': {
      const latent = linked(run, 'latent_image', 'latent')
      await sample(run, linked(run, 'sigmas', 'sigmas').steps)
      const out: NodeValue = { ...latent, seed: int(run, 'noise_seed') }
      return { outputs: [out, out] }
    }
    case 'SamplerCustomAdvanced': {
      const latent = linked(run, 'latent_image', 'latent')
      const noise = linked(run, 'noise', 'noise')
      await sample(run, linked(run, 'sigmas', 'sigmas').steps)
      const out: NodeValue = { ...latent, seed: noise.seed }
      return { outputs: [out, out] }
    }
    case 'SDTurboScheduler':
    case 'BasicScheduler': {
      const denoise = run.inputs.denoise
      const off = denoise instanceof PyFloat && denoise.value <= 0
      return { outputs: [{ kind: 'sigmas', steps: off ? 0 : Number(int(run, 'steps')) }] }
    }
    case 'RandomNoise':
      return { outputs: [{ kind: 'noise', seed: int(run, 'noise_seed') }] }
    case 'VAEDecode': {
      const latent = linked(run, 'samples', 'latent')
      return { outputs: [{ ...latent, kind: 'image' }] }
    }
    case 'SaveImage':
      return saveImages(run, String(run.inputs.filename_prefix), 'output', 4)
    case 'PreviewImage': {
      const letters = 'abcdefghijklmnopqrstupvxyz' // sic: ComfyUI's own alphabet
      const suffix = Array.from({ length: 5 }, () => letters[randomInt(letters.length)]).join('')
      return saveImages(run, `ComfyUI_temp_${suffix}`, 'temp', 1)
    }
    default:
      return (await runEditNode(run)) ?? objects(run)
  }
}

function computeVars(prefix: string, width: number, height: number): string {
  const now = new Date()
  const two = (n: number) => String(n).padStart(2, '0')
  return prefix
    .replaceAll('%width%', String(width))
    .replaceAll('%height%', String(height))
    .replaceAll('%year%', String(now.getFullYear()))
    .replaceAll('%month%', two(now.getMonth() + 1))
    .replaceAll('%day%', two(now.getDate()))
    .replaceAll('%hour%', two(now.getHours()))
    .replaceAll('%minute%', two(now.getMinutes()))
    .replaceAll('%second%', two(now.getSeconds()))
}

async function saveImages(
  run: NodeRun,
  rawPrefix: string,
  type: 'output' | 'temp',
  compressLevel: number,
): Promise<NodeResult> {
  const image = linked(run, 'images', 'image')
  const base = type === 'output' ? run.dirs.output : run.dirs.temp
  const prefix = rawPrefix.includes('%') ? computeVars(rawPrefix, image.width, image.height) : rawPrefix
  const normal = posix.normalize(prefix).replace(/(.)\/+$/, '$1')
  const dir = posix.dirname(normal)
  const subfolder = dir === '.' ? '' : dir
  const filename = posix.basename(normal)
  const folder = resolve(base, subfolder) // like os.path.join: an absolute prefix escapes
  const rel = relative(base, folder)
  if (rel === '..' || rel.startsWith(`..${sep}`) || resolve(base, rel) !== folder) {
    throw new PyException(
      'Exception',
      `**** ERROR: Saving image outside the output folder is not allowed.\n full_output_folder: ${folder}\n         output_dir: ${base}`,
    )
  }
  await mkdir(folder, { recursive: true })
  let counter = 1
  for (const name of await readdir(folder)) {
    const head = name.slice(0, filename.length + 1)
    if (head.slice(0, -1) !== filename || !head.endsWith('_')) continue
    const digits = Number.parseInt(name.slice(filename.length + 1).split('_')[0] ?? '', 10)
    if (Number.isFinite(digits) && digits + 1 > counter) counter = digits + 1
  }
  const text: Record<string, string> = { prompt: toPyJson(run.prompt) }
  const pnginfo = run.extraData.extra_pnginfo
  if (typeof pnginfo === 'object' && pnginfo !== null && !Array.isArray(pnginfo)) {
    for (const [key, value] of Object.entries(pnginfo)) text[key] = toPyJson(value)
  }
  const images: PyDict[] = []
  for (let i = 0; i < image.batch; i++) {
    const file = `${filename.replaceAll('%batch_num%', String(i))}_${String(counter).padStart(5, '0')}_.png`
    const pixels = image.picture
      ? pictureScanlines(image.picture)
      : composeImage(image.seed ?? 0n, i, image.width, image.height, image.source)
    const png = encodePng(pixels, {
      text,
      compressLevel,
    })
    await writeFile(resolve(folder, file), png)
    images.push({ filename: file, subfolder, type })
    counter++
  }
  return { outputs: [], ui: { images } }
}
