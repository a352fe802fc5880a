/**
 * Every model svc knows: the curated catalogue plus what was registered from a local path or a URL
 * (`<state>/models/registry.json`). `resolve` turns what a user typed after `--model` into an entry;
 * `pull` downloads a missing file to where `dest` says and records it.
 */
import { stat } from 'node:fs/promises'
import { dirname, isAbsolute, join, resolve as resolvePath } from 'node:path'
import { type ModelEntry, type PullProgress, SvcError } from '@svc/core'
import { withFileLock } from '@svc/core/node'
import { type CatalogueEntry, catalogueToModel } from './catalogue'
import { DEFAULT_HUB_URL, type HubConfig, hubHeadersFor } from './hub/hub-config'
import { parseHubName } from './hub/hub-name'
import { describeHub, hubAlias, resolveHubSpec } from './hub/hub-store'
import { fileKind, modelDest, refFromFileName } from './model-files'
import { refuseNonModel, refuseNonModelDownload } from './model-header'
import {
  allOnDisk,
  checkPresentFile,
  projectorDest,
  pullPlan,
  removeEmptyDirs,
  removeModelFiles,
  withPath,
} from './model-on-disk'
import { projectorFromSpec } from './model-projector'
import { fileNameFromUrl, parseModelUrl } from './model-url'
import { pullFiles } from './pull-files'
import { readRegistryFile, writeRegistryFile } from './registry-file'

export interface ModelStoreOptions {
  stateDir: string
  catalogue: CatalogueEntry[]
  /** More curated entries that need no file (e.g. FastFlowLM tags, which the NPU server pulls itself). */
  models?: ModelEntry[]
  /** The Hugging Face Hub that `hf.co/…` names resolve against; default huggingface.co, no token. */
  hub?: HubConfig
}

export interface ResolveOptions {
  /** The sha256 a model pulled from a URL must have: the download and a file already pulled are checked. */
  sha256?: string
  /** A vision projector (local path or http(s) URL) to attach to a model given by path or URL. */
  mmproj?: string
  /**
   * Judges the model `resolve` returns, before it is registered (a path or URL named for the first
   * time, a projector attached) or returned: what it throws is the answer, the registry untouched.
   * With a projector, a new model file is judged and registered on its own first.
   */
  accept?: (entry: ModelEntry) => void | Promise<void>
}

export { refFromFileName } from './model-files'

export class ModelStore {
  private registered = new Map<string, ModelEntry>()
  private registryProblem: string | null = null
  private readonly curated = new Map<string, ModelEntry>()
  private readonly registryPath: string
  /** The Hub that `hf.co/…` names resolve against (HF_ENDPOINT, HF_TOKEN), for the model library too. */
  readonly hub: HubConfig

  private constructor(private readonly options: ModelStoreOptions) {
    this.registryPath = join(options.stateDir, 'models', 'registry.json')
    this.hub = options.hub ?? { hubUrl: DEFAULT_HUB_URL }
    for (const entry of options.catalogue) this.curated.set(entry.id, catalogueToModel(entry))
    for (const entry of options.models ?? []) this.curated.set(entry.id, entry)
  }

  static async open(options: ModelStoreOptions): Promise<ModelStore> {
    const store = new ModelStore(options)
    await store.reload()
    return store
  }

  /**
   * Where a downloaded model lives: `<state>/models/<id>/<file>`; checkpoints under ComfyUI's tree
   * (`modelDest`).
   */
  dest(entry: ModelEntry): string {
    return modelDest(this.options.stateDir, entry)
  }

  /** Where a model's projector is downloaded to: beside the model, `<state>/models/<id>/<file>`. */
  projectorDest(entry: ModelEntry): string | undefined {
    return projectorDest(this.options.stateDir, entry)
  }

  /** Hub names for the dispatcher (`alias`: cheap, sync) and load on request (`describe`): hub/hub-store.ts. */
  readonly hubNames = {
    alias: (spec: string) =>
      this.registered.has(spec) ? undefined : hubAlias(this.registered.values(), spec),
    describe: async (ref: string) => (await this.get(ref)) ?? describeHub(this.hubContext(), ref),
  }

  /** Every known model, with `path` set when its file is on disk. Registered entries win over curated. */
  async list(): Promise<ModelEntry[]> {
    const all = new Map(this.curated)
    for (const [id, entry] of this.registered) all.set(id, entry)
    return Promise.all([...all.values()].map((e) => this.withPath(e)))
  }

  /** The entry for an exact ref or curated id, with `path` when on disk. */
  async get(id: string): Promise<ModelEntry | undefined> {
    const entry = this.registered.get(id) ?? this.curated.get(id)
    return entry ? this.withPath(entry) : undefined
  }

  /**
   * Resolves what a user named: a curated id or registry ref; a Hub name (`hf.co/<owner>/<repo>:<quant>`:
   * hub/hub-store.ts); an http(s) URL (registered as a ref named after the file, pulled on load; with
   * `sha256`, verified against it); or a path to a local file (registered as a ref named after the file
   * stem). Throws 404 `model.not_found` otherwise, 400 `request.invalid` for a malformed URL or a
   * `sha256` that cannot apply or does not match.
   */
  async resolve(spec: string, options: ResolveOptions = {}): Promise<ModelEntry> {
    const entry = await this.resolveSpec(spec, options)
    if (!options.mmproj) return entry
    const mmproj = await projectorFromSpec(entry, options.mmproj) // recorded: later loads bring it
    return this.register({ ...entry, mmproj }, options.accept)
  }

  private async resolveSpec(spec: string, options: ResolveOptions): Promise<ModelEntry> {
    const isUrl = /^https?:\/\//i.test(spec)
    if (options.sha256 !== undefined && !isUrl) {
      const why = 'sha256 applies to models pulled from an http(s) URL'
      throw new SvcError('request.invalid', why, { param: 'sha256' })
    }
    const hubName = parseHubName(spec)
    if (hubName)
      return resolveHubSpec(this.hubContext(), hubName, options.mmproj ? undefined : options.accept)
    const known = isUrl ? undefined : await this.get(spec)
    if (known && !options.mmproj) await options.accept?.(known)
    if (known) return known
    if (isUrl) {
      const url = parseModelUrl(spec)
      const file = fileNameFromUrl(url) ?? 'model.gguf'
      const kind = fileKind(file)
      const id = refFromFileName(file)
      const previous = this.registered.get(id)
      // A checksum given once for this URL keeps applying (a later re-pull is verified too).
      const sha256 = options.sha256 ?? (previous?.url === spec ? previous.sha256 : undefined)
      const entry: ModelEntry = { id, ...kind, source: 'pulled', url: spec, ...(sha256 ? { sha256 } : {}) }
      const verified = previous?.url === spec && previous.sha256 === options.sha256
      if (options.sha256 && !verified) await checkPresentFile(this.dest(entry), entry, options.sha256)
      return this.register(entry, options.accept)
    }
    if (
      isAbsolute(spec) ||
      spec.startsWith('.') ||
      spec.includes('/') ||
      /\.(gguf|safetensors|ckpt|bin)$/i.test(spec)
    ) {
      const path = resolvePath(spec)
      const info = await stat(path).catch(() => undefined)
      if (!info?.isFile())
        throw new SvcError('model.not_found', `no model file at ${path}`, { param: 'model' })
      const kind = fileKind(path)
      await refuseNonModel(path, kind.format, `the file ${path}`) // a text file, an image: never a ref
      const entry: ModelEntry = { id: refFromFileName(path), ...kind, source: 'local', path, size: info.size }
      return this.register(entry, options.accept)
    }
    // A ref may be missing only because registry.json cannot be read: say so.
    const why = this.registryProblem ? `; ${this.registryProblem}` : ''
    throw new SvcError(
      'model.not_found',
      `model "${spec}" does not exist (not a curated id, a registry ref, a URL or a file)${why}`,
      { param: 'model' },
    )
  }

  /**
   * Whether the model's files are on disk (complete: partial downloads are `.part` files): the
   * weights (every shard of a split), and the projector of a model that has one.
   */
  async isPresent(entry: ModelEntry): Promise<boolean> {
    return allOnDisk(await this.withPath(entry))
  }

  /**
   * Downloads what is missing of a model — its file, then its projector (see `pullFiles`: one
   * progress figure for both, each file resumable on its own) — and returns the entry with paths.
   */
  async pull(
    entry: ModelEntry,
    onProgress: (p: PullProgress) => void,
    signal: AbortSignal,
  ): Promise<ModelEntry> {
    const found = await this.withPath(entry)
    const { files, onDisk } = pullPlan(this.options.stateDir, entry, found, hubHeadersFor(this.hub))
    if (files.length === 0) return found
    // What is complete already counts as done, so the figure is the whole model's.
    await pullFiles(files, onProgress, signal, onDisk).catch(async (error: unknown) => {
      // A Hub model's failed pull leaves no empty hf/<owner>/<repo>/<quant> folders (a `.part` stays).
      if (entry.hub) await removeEmptyDirs(dirname(this.dest(entry)), join(this.options.stateDir, 'models'))
      throw error
    })
    const pulled = await this.withPath(entry)
    await refuseNonModelDownload(entry, pulled, () => this.remove(entry)) // an HTML page, a cut file
    if (entry.source !== 'catalogue') await this.register(pulled)
    return pulled
  }

  /**
   * Deletes what a pull put on disk: the model's file under `<state>` (and a partial `.part`), then its
   * folder when empty; a ref registered by a pull from a URL is forgotten too. A local file is the
   * user's (svc only points at it): refused with 400. Idempotent; the caller checks no slot holds it.
   */
  async remove(entry: ModelEntry): Promise<{ deleted: string | null }> {
    if (entry.source === 'local')
      throw new SvcError(
        'request.invalid',
        `"${entry.id}" is a local file svc did not download: forget the ref instead (svc models forget ${entry.id}; the file stays), and delete the file yourself if you mean to`,
        { param: 'id' },
      )
    const dest = this.dest(entry)
    const present = await removeModelFiles(this.options.stateDir, entry, dest)
    if (entry.source === 'pulled') await this.unregister(entry.id)
    return { deleted: present ? dest : null }
  }

  /** Drops a registered ref, touching no file (forgetting a local file's ref). Idempotent. */
  unregister(id: string): Promise<void> {
    return withFileLock(this.registryPath, async () => {
      await this.reloadForChange()
      if (this.registered.delete(id)) await this.saveRegistry()
    })
  }

  /**
   * Re-reads the registry file (another process may have registered models). One that cannot be read
   * or parsed keeps the last good entries in memory; changes are refused until it reads again.
   */
  async reload(): Promise<void> {
    const read = await readRegistryFile(this.registryPath)
    this.registryProblem = read.ok ? null : read.error // `registry-file.ts`: never an empty registry
    if (read.ok) this.registered = new Map(read.models.map((m) => [m.id, m]))
  }

  /** Re-reads the registry under its lock, refusing to go on (409) when it cannot be read. */
  private async reloadForChange(): Promise<void> {
    await this.reload()
    if (this.registryProblem !== null)
      throw new SvcError(
        'config.invalid',
        `${this.registryProblem}; svc does not write over a registry it could not read: fix the file, or move it away to start an empty registry`,
      )
  }

  private async register(entry: ModelEntry, accept?: ResolveOptions['accept']): Promise<ModelEntry> {
    if (accept) await accept(await this.withPath(entry))
    // Registering what is already there writes nothing: a retry on a full disk fails in the pull, with
    // the pull's clear message, not here.
    const same = () => JSON.stringify(this.registered.get(entry.id)) === JSON.stringify(entry)
    await this.reload()
    if (same()) return this.withPath(entry)
    await withFileLock(this.registryPath, async () => {
      await this.reloadForChange()
      if (same()) return
      this.registered.set(entry.id, entry)
      await this.saveRegistry()
    })
    return this.withPath(entry)
  }

  /** Writes what is registered (atomically; the caller holds the registry's lock). */
  private async saveRegistry(): Promise<void> {
    await writeRegistryFile(this.registryPath, [...this.registered.values()])
  }

  private withPath(entry: ModelEntry): Promise<ModelEntry> {
    return withPath(this.options.stateDir, entry)
  }

  private hubContext() {
    return {
      config: this.hub,
      registered: () => this.registered.values(),
      withPath: (e: ModelEntry) => this.withPath(e),
      isPresent: (e: ModelEntry) => this.isPresent(e),
      register: (e: ModelEntry) => this.register(e),
    }
  }
}
