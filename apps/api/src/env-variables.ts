/**
 * Every environment variable the API reads, declared once: its name, its default and what it means.
 * `readServeEnv` (env.ts) reads only names declared here and takes plain defaults from `fallback`;
 * docs/configuration.md's table is this table (test/env-docs.test.ts fails when they differ).
 */
import { declaredFallback, type EnvVariable } from '@svc/core/node'

export const ENV_VARIABLES = [
  {
    name: 'SVC_HOST',
    defaultText: '`0.0.0.0`; `127.0.0.1` when auth is on',
    meaning: 'address to listen on (with auth on, another address logs a warning)',
  },
  { name: 'SVC_PORT', fallback: '8080', meaning: 'port (`0` picks a free one)' },
  {
    name: 'SVC_OLLAMA_PORT',
    defaultText: 'unset (off)',
    meaning:
      "a second listener for clients that assume Ollama's address (Ollama's own is `11434`): it serves only the Ollama API, with the same auth, and `GET /` answers `Ollama is running`; the main port serves the Ollama API too ([ollama.md](ollama.md))",
  },
  {
    name: 'SVC_CONFIG_DIR',
    defaultText: '`/etc/svc` if it exists, else `$XDG_CONFIG_HOME/svc` (`~/.config/svc`)',
    meaning: 'slot configs, `presets.toml`, `tokens.toml`, `upstreams.toml`',
  },
  {
    name: 'SVC_STATE_DIR',
    defaultText: '`/var/lib/svc` if it exists, else `$XDG_DATA_HOME/svc` (`~/.local/share/svc`)',
    meaning: 'models, logs, pid files, image cache, volumes, chat store',
  },
  {
    name: 'SVC_CACHE_DIR',
    defaultText: '`$XDG_CACHE_HOME/svc` (`~/.cache/svc`)',
    meaning: 'engine builds (`engines/<name>/<version>/`)',
  },
  { name: 'SVC_LOG_LEVEL', fallback: 'info', meaning: '`debug`, `info`, `warn`, `error`' },
  {
    name: 'SVC_AUTH_ENABLED',
    fallback: '0',
    meaning: "`1`/`true`/`yes`/`on` requires a bearer token or the proxy's forwarded identity",
  },
  {
    name: 'SVC_TRUSTED_PROXIES',
    defaultText: '`127.0.0.1,::1`',
    meaning: 'IPs/CIDRs whose `X-Forwarded-Email` is believed (as admin); `none` trusts none',
  },
  {
    name: 'SVC_PROXY_SECRET',
    meaning: 'when set, a forwarded identity also needs `X-Svc-Proxy-Secret` with this value',
  },
  {
    name: 'SVC_ALLOWED_HOSTS',
    meaning:
      "host names the API answers to beyond loopback and this machine's own names and addresses: comma-separated names, addresses, `.example.com` for a domain and everything under it, or `*` (no check); any other `Host` is 403 `host.forbidden` ([auth.md](auth.md#hosts-and-origins)). The chat server reads it too",
  },
  {
    name: 'SVC_HOSTNAME',
    meaning:
      "the reverse proxy's public name (`svc install` takes it from here too); when set in the server's environment, one more name it answers to",
  },
  {
    name: 'SVC_CORS_ORIGINS',
    defaultText: '`*`',
    meaning:
      'origins whose pages may read `/v1/*` answers (comma-separated; `none` turns CORS off; never with credentials; `/api/*` answers no CORS)',
  },
  {
    name: 'SVC_DRAIN_SECONDS',
    fallback: '10',
    meaning: 'on SIGTERM/SIGINT, how long in-flight requests may finish',
  },
  {
    name: 'SVC_QUEUE_TIMEOUT',
    fallback: '120',
    meaning: 'seconds a request waits for a loading slot before 503 `slot.unavailable`',
  },
  {
    name: 'SVC_UPSTREAM_TIMEOUT',
    fallback: '600',
    meaning: 'seconds an upstream may take to start answering before 504',
  },
  { name: 'SVC_UNLOAD_GRACE', fallback: '30', meaning: 'seconds an unload waits for in-flight requests' },
  {
    name: 'SVC_MAX_CONNECTIONS',
    fallback: '512',
    meaning:
      "open connections served at once; the next are answered 503 `server.busy` with `Retry-After: 5` (past twice the number, dropped unanswered). The chat server's own is `SVC_CHAT_MAX_CONNECTIONS` (also `512`)",
  },
  {
    name: 'SVC_MAX_STREAMS',
    fallback: '64',
    meaning:
      'live streams at once, `/api/events` subscribers and `logs?follow=1` followers together (each dashboard tab holds one); the next are answered 503 `server.busy` with `Retry-After: 10` before the stream starts',
  },
  {
    name: 'SVC_REALTIME_MAX_SESSIONS',
    fallback: '4',
    meaning:
      'open `/v1/realtime` sessions per token (per person signed in through the proxy; per address with auth off); the next upgrade is answered 429 `quota.exceeded` ([api.md](api.md#the-realtime-api))',
  },
  {
    name: 'SVC_REALTIME_MAX_SESSION_SECONDS',
    fallback: '3600',
    meaning:
      'how long one realtime session may last; then an `error` event `session.expired` and the socket closes (1000)',
  },
  {
    name: 'SVC_REALTIME_MAX_BUFFER_SECONDS',
    fallback: '300',
    meaning:
      "seconds of audio a realtime session's input buffer holds (pcm16 24 kHz); an append past it is refused with an `error` event `request.too_large`",
  },
  {
    name: 'SVC_LOAD_ON_REQUEST',
    fallback: '0',
    meaning:
      '`1` turns on `load_on_request` for every slot whose file does not set it ([self-managing-slots.md](self-managing-slots.md); installed: `svc install --load-on-request`)',
  },
  {
    name: 'SVC_UNLOAD_AFTER',
    fallback: '0',
    defaultText: '`0` (never)',
    meaning:
      '`unload_after` for every slot whose file does not set it: `"15m"`, `"90s"`, `"2h"` (installed: `svc install --unload-after 15m`)',
  },
  {
    name: 'SVC_MEMORY_RESERVE_GB',
    defaultText: '`4` on system memory (at most a quarter), `0.5` per GPU',
    meaning: 'memory kept free per device ([scale-out.md](scale-out.md))',
  },
  { name: 'SVC_MEMORY_BUDGET_GB', meaning: 'the budget per device, replacing total − reserve' },
  {
    name: 'SVC_USAGE_ENABLED',
    fallback: '1',
    meaning:
      'the usage ledger (`<state>/usage.db`), quotas and per-token metrics; `0` turns them off ([usage.md](usage.md))',
  },
  {
    name: 'SVC_USAGE_FLUSH_SECONDS',
    fallback: '2',
    meaning: 'how often counted use is written to the ledger: the most a crash or `kill -9` loses',
  },
  {
    name: 'SVC_USAGE_HOURLY_DAYS',
    fallback: '90',
    meaning: 'days of hourly rows in the ledger; older ones become one row per day',
  },
  { name: 'SVC_USAGE_DAILY_DAYS', fallback: '0', meaning: 'days of daily rows; `0` keeps them' },
  {
    name: 'SVC_IDENTITY_QUOTA',
    meaning:
      'the quota of every person (a forwarded identity, or one a token names with `X-Svc-User`): `rpm=30,tpm=20000,tpd=200000`, any subset ([usage.md](usage.md#quotas))',
  },
  { name: 'SVC_MODELS_MANIFEST', defaultText: '`manifests/models.toml`', meaning: 'the model catalogue' },
  {
    name: 'HF_ENDPOINT',
    defaultText: '`https://huggingface.co`',
    meaning:
      "the Hugging Face Hub that `hf.co/…` model names resolve against and download from (a mirror), as the Hub's own clients read it ([models.md](models.md#models-from-the-hugging-face-hub))",
  },
  {
    name: 'HF_TOKEN',
    meaning:
      'a Hugging Face access token (`hf_…`) for gated and private repos; sent to `HF_ENDPOINT` only, never to the CDN it redirects downloads to',
  },
  {
    name: 'SVC_IMAGES_MANIFEST',
    defaultText: '`manifests/images.toml`',
    meaning: 'the pinned container images',
  },
  {
    name: 'SVC_PROVIDER_MODULES',
    meaning: 'comma-separated modules whose default export is a third-party provider',
  },
  {
    name: 'SVC_DASHBOARD_DIR',
    defaultText: '`apps/dashboard/dist`',
    meaning: 'the dashboard build served at `/`',
  },
  {
    name: 'SVC_LLAMA_SERVER',
    meaning: 'the `llama-server` binary; else `PATH`, else the newest build in the engine cache',
  },
  {
    name: 'SVC_WHISPER_SERVER',
    meaning: 'the `whisper-server` binary; else `PATH`, else the newest build in the engine cache',
  },
  {
    name: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    defaultText: 'unset (no traces)',
    meaning:
      'an OTLP/HTTP collector (`http://localhost:4318`; `/v1/traces` is appended): svc sends a trace per inference request ([operations.md](operations.md#traces)); unset, the OpenTelemetry SDK is not even loaded. The SDK reads its other standard variables itself (`OTEL_SERVICE_NAME`, default `svc`; `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_BSP_*`, `OTEL_TRACES_SAMPLER`)',
  },
  {
    name: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    defaultText: 'unset',
    meaning: 'the full URL for traces alone (nothing appended); turns traces on as the one above does',
  },
  {
    name: 'OTEL_SDK_DISABLED',
    defaultText: '`false`',
    meaning: '`true` keeps traces off even with an endpoint set (as does `OTEL_TRACES_EXPORTER=none`)',
  },
  {
    name: 'OTEL_TRACES_EXPORTER',
    defaultText: '`otlp`',
    meaning: '`none` keeps traces off; svc exports OTLP only',
  },
  {
    name: 'DOCKER_HOST',
    defaultText: 'the local socket',
    meaning:
      'the Docker Engine API (podman: `unix:///run/podman/podman.sock`); read by the container client, not by svc itself',
  },
] as const satisfies readonly EnvVariable[]

/** The name of a variable the API reads. */
export type ServeVariable = (typeof ENV_VARIABLES)[number]['name']

/** The variable's declared fallback (a plain value); throws when it declares none (a bug, not input). */
export function fallbackOf(name: ServeVariable): string {
  return declaredFallback(ENV_VARIABLES, name)
}
