/**
 * The environment a host upstream program gets: only what programs need to run (PATH, locale, home,
 * temp dirs, library path) and the GPU/runtime tuning variables of the stacks svc runs (ROCm/HIP,
 * CUDA, Vulkan/Mesa, ggml/llama.cpp, OpenMP/BLAS threads), plus the provider's own `buildEnv`. Never
 * the rest of svc's environment: `SVC_PROXY_SECRET`, hosted API keys (`OPENAI_API_KEY`, …) and
 * whatever else the operator set for svc stay in svc.
 */

const NAMES = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TMPDIR',
  'TMP',
  'TEMP',
  'XDG_RUNTIME_DIR',
  'XDG_CACHE_HOME',
  'LD_LIBRARY_PATH',
  'DISPLAY',
  'WAYLAND_DISPLAY',
])

const PREFIXES = [
  'LC_',
  // AMD: ROCm / HIP / HSA runtime selection and overrides (HSA_OVERRIDE_GFX_VERSION, ROCR_VISIBLE_DEVICES)
  'HIP_',
  'HSA_',
  'ROCR_',
  'ROCM_',
  'AMD_',
  // NVIDIA
  'CUDA_',
  'NVIDIA_',
  // Vulkan loader and Mesa drivers (VK_ICD_FILENAMES, RADV_PERFTEST, MESA_VK_DEVICE_SELECT)
  'VK_',
  'MESA_',
  'RADV_',
  'GPU_',
  // llama.cpp / ggml / whisper.cpp tuning, CPU threading
  'GGML_',
  'LLAMA_',
  'WHISPER_',
  'OMP_',
  'OPENBLAS_',
  'MKL_',
]

/** Whether a variable of svc's environment is passed on to host upstreams. */
export function passedToUpstreams(name: string): boolean {
  if (NAMES.has(name)) return true
  for (const prefix of PREFIXES) if (name.startsWith(prefix)) return true
  return false
}

/** svc's environment filtered to what upstreams need, with the provider's variables on top. */
export function upstreamEnv(
  env: Record<string, string | undefined>,
  providerEnv: Record<string, string>,
): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && passedToUpstreams(name)) out[name] = value
  }
  return { ...out, ...providerEnv }
}
