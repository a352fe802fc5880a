#!/usr/bin/env bash
# Makes `node` on PATH a Node that svc supports (22 or newer, `engines` in package.json). Where the box's
# `node` is older or absent, installs the official Node 24 LTS build, which npm publishes as the package
# `node-linux-<arch>` (bin/node, include/node; no npm inside), under <prefix>/lib/nodejs and links
# <prefix>/bin/node to it. /usr/local/bin precedes /usr/bin on Debian's PATH, so that `node` then wins over
# the system's (which stays as it is). Idempotent: where a supported `node` is on PATH it does nothing.
# ./scripts/setup.sh runs it first; it prints the bin directory to put first on PATH (stdout), logs to stderr.
# It decides by NODE_MIN, not by the pin: raising NODE_VERSION does not replace a supported Node already
# on PATH (a box set up earlier keeps its 24.x until that is removed).
#
# The installed Node gets a global npmrc (<home>/etc/npmrc) with the old Node's global settings (a cafile,
# say) and `prefix=<prefix>`: npm and pnpm read their global config beside the running node, so without it
# `npm install -g` would put pnpm inside this Node's folder, off PATH, and forget the box's settings.
#
# Environment: SVC_NODE_PREFIX (default /usr/local) installs elsewhere (the tests use a temporary one).
set -euo pipefail

# The one place the Node version is pinned, with the sha512 of each npm tarball (npm's `dist.integrity`,
# in hex): the download is checked against these whether npm or curl fetched it.
NODE_VERSION=24.22.3
NODE_SHA512_X64=287b286fe16ff587ab013bd8ba331b8b226a9d10af2edadcaff79336a46a88e486a7dec43a244fd723f8efe9271a043fc677375d8f31ce45b9f3b76567336a44
NODE_SHA512_ARM64=219c74279dbfd4d0f002c6368b2591f6794f218b98be24d67ad8e3f3e125bd8421dbe5d184b7c27e46c5105ff63b9bc623685c51bc8f34757e9f3df8d856c95f
# The oldest Node svc supports (engines.node): what its dependencies need at run time (undici 8: 22.19)
# and in the tests (jsdom 31: 22.22).
NODE_MIN=22.22

prefix="${SVC_NODE_PREFIX:-/usr/local}"
log() { printf '\033[1m[setup]\033[0m %s\n' "$*" >&2; }

# The version of the `node` on PATH (0.0.0 when there is none or it does not run), and its major.
current=$( (node --version 2>/dev/null || echo v0.0.0) | sed -E 's/^v//')
major=${current%%.*}
supported() { [ "$(printf '%s\n%s\n' "$NODE_MIN" "$1" | sort -V | head -n1)" = "$NODE_MIN" ]; }
if supported "$current"; then
  log "Node $(node --version) present ($(command -v node))"
  dirname "$(command -v node)"
  exit 0
fi

case "$(uname -m)" in
  x86_64) arch=x64 sha512=$NODE_SHA512_X64 ;;
  aarch64 | arm64) arch=arm64 sha512=$NODE_SHA512_ARM64 ;;
  *) log "no Node $NODE_VERSION build on npm for $(uname -m): install Node $NODE_MIN+ yourself" && exit 1 ;;
esac
pkg="node-linux-$arch"
home="$prefix/lib/nodejs/node-v$NODE_VERSION-linux-$arch"

if [ ! -x "$home/bin/node" ]; then
  log "the box's Node is ${current/#0.0.0/absent} (svc needs $NODE_MIN+): installing Node $NODE_VERSION from npm ($pkg) in $home"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  tarball="$work/$pkg-$NODE_VERSION.tgz"
  # The old Node's global npm settings, read while it is still the one on PATH (see the header).
  old_npmrc=""
  if command -v npm >/dev/null 2>&1 && [ "$major" -gt 0 ]; then
    old_npmrc=$(npm config get globalconfig 2>/dev/null || true)
  fi
  if command -v npm >/dev/null 2>&1 && [ "$major" -gt 0 ]; then
    # npm pack checks the registry's sha512 itself and keeps the tarball in its cache.
    (cd "$work" && npm pack --silent --prefer-offline "$pkg@$NODE_VERSION" >/dev/null)
  else
    registry="${npm_config_registry:-https://registry.npmjs.org/}"
    curl -fsSL -o "$tarball" "${registry%/}/$pkg/-/$pkg-$NODE_VERSION.tgz"
  fi
  if [ "$(sha512sum "$tarball" | cut -d' ' -f1)" != "$sha512" ]; then
    log "$pkg-$NODE_VERSION.tgz does not match its pinned sha512: not installed"
    exit 1
  fi
  tar -xzf "$tarball" -C "$work"
  mkdir -p "$work/package/etc"
  { if [ -n "$old_npmrc" ] && [ -f "$old_npmrc" ]; then grep -v '^[[:space:]]*prefix[[:space:]]*=' "$old_npmrc" || true; fi
    echo "prefix=$prefix"; } >"$work/package/etc/npmrc"
  # Into place in one rename, so an interrupted run leaves no half-copied Node behind (a damaged earlier
  # install, without its bin/node, is replaced rather than receiving the new one inside it).
  mkdir -p "$prefix/lib/nodejs"
  rm -rf "$home.partial"
  mv "$work/package" "$home.partial"
  rm -rf "$home"
  mv "$home.partial" "$home"
fi

mkdir -p "$prefix/bin"
ln -sfn "$home/bin/node" "$prefix/bin/node"
installed=$("$prefix/bin/node" --version)
log "Node $installed at $prefix/bin/node (ahead of the system's on PATH)"
echo "$prefix/bin"
