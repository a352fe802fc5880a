#!/usr/bin/env bash
# Sets up everything svc and its tests need on Debian 12, as root. Idempotent: a second run installs
# nothing new and reuses the cached engine builds (~/.cache/svc), so it takes seconds.
#
#   ./scripts/setup.sh            packages, Node 24 where the box's is older than 22, pnpm, dependencies, engines
#
# Environment: SVC_SETUP_SKIP_APT=1 skips apt (for machines where it is managed elsewhere).
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  git ca-certificates curl cmake build-essential pkg-config   # engine builds (llama.cpp, whisper.cpp)
  python3                                                     # node-gyp, where a native module has no prebuilt binary
  docker.io docker-registry                                   # container runtime + local registry (tests)
  caddy                                                       # reverse proxy (auth) and benchmark peer
  systemd                                                     # systemd-analyze, systemctl --root, systemd-sysusers (svc install tests)
  chromium                                                    # dashboard tests (headless)
  espeak-ng ffmpeg                                            # CPU speech engines and audio conversion
  wrk                                                         # benchmark load generator
  prometheus                                                  # deploy/ tests: the real Prometheus and promtool
  iproute2 procps                                             # ip/ss/pkill used by tests and tooling
)

log() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }

if [ "${SVC_SETUP_SKIP_APT:-0}" != "1" ]; then
  missing=()
  for p in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    log "installing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    # Debian's prometheus package enables its own service on :9090 where systemd runs; svc's tests start
    # their own Prometheus and deploy/ is for the user's, so the packaged one is not left running.
    if [[ " ${missing[*]} " == *" prometheus "* ]] && [ -d /run/systemd/system ]; then
      systemctl disable --now prometheus >/dev/null 2>&1 || true
    fi
  else
    log "Debian packages present"
  fi
fi

# Node: where the box's is older than 22 (Debian 12 with NodeSource's 20, say), Node 24 LTS from npm in
# /usr/local/lib/nodejs, linked as /usr/local/bin/node (see install-node.sh). The rest of setup runs on it.
node_bin="$(./scripts/install-node.sh)"
export PATH="$node_bin:$PATH"
hash -r
# Native modules are built against the headers of the Node that runs the build, not ~/.npmrc's `nodedir`
# (which may name another Node's).
node_home="$(node -p "require('node:path').resolve(process.execPath, '../..')")"
[ -f "$node_home/include/node/node.h" ] && export npm_config_nodedir="$node_home"

PNPM_VERSION="$(node -p "require('./package.json').packageManager.split('@')[1]")"
if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version 2>/dev/null)" != "$PNPM_VERSION" ]; then
  log "installing pnpm $PNPM_VERSION from npm"
  command -v npm >/dev/null 2>&1 || { log "no npm to install pnpm with: install npm (or pnpm $PNPM_VERSION)"; exit 1; }
  npm install -g --silent "pnpm@$PNPM_VERSION" >/dev/null 2>&1
fi

log "installing dependencies"
CI=true pnpm install --frozen-lockfile --reporter=silent
# better-sqlite3 (the chat store, the usage ledger) loads a prebuilt N-API addon, which any Node 22+ loads.
# Where it does not load (no prebuilt binary for this platform, a damaged install), it is built from source
# against this Node's headers (its own node-gyp script; `pnpm rebuild` skips a package with a prebuild).
sqlite_loads() { (cd apps/chat && node -e "new (require('better-sqlite3'))(':memory:').close()") 2>/dev/null; }
if ! sqlite_loads; then
  log "building better-sqlite3 from source for Node $(node --version) (a few minutes)"
  (cd "$(cd apps/chat && node -p "require('node:path').dirname(require.resolve('better-sqlite3/package.json'))")" &&
    npm run --silent build-release >/dev/null)
  sqlite_loads || { log "better-sqlite3 does not load under Node $(node --version)"; exit 1; }
fi

log "building the front ends and the servers (pnpm build)"
pnpm build

# Links the built `svc` and `slot` onto PATH (`pnpm svc …` runs the source through tsx).
for bin in svc slot; do
  ln -sf "$PWD/apps/cli/dist/$bin.js" "/usr/local/bin/$bin" 2>/dev/null || true
done

log "building engines (cached in ~/.cache/svc after the first build)"
node apps/cli/dist/svc.js engines build llama-server
node apps/cli/dist/svc.js engines build whisper-server

log "ready"
