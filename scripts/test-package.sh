#!/usr/bin/env bash
# `npm run test:package`: proves the Debian packages (scripts/package.sh) on an x86-64 Debian
# machine. Not part of `npm test` (minutes: two packages, lintian, emulated arm64).
#
#   1. scripts/package.sh builds station-agent_<version>_arm64.deb and _amd64.deb from this
#      tree, and lintian checks both (an error fails it).
#   2. The arm64 package is unpacked (dpkg-deb -x) into a temporary root; its own Node.js runs
#      under qemu-aarch64 with Debian's arm64 libc (the sysroot of scripts/lib/targets.sh).
#   3. test/package (vitest on the host): the package's contents, `station-agent --version`,
#      `doctor` against the local service, a results folder uploaded exactly once across a
#      SIGKILL (the arm64 agent against the local service on x86), and the maintainer scripts
#      of the amd64 package under a temporary root: install, upgrade, remove, purge.
#
# Needs what scripts/test-arm64.sh needs (Debian with apt, root the first time, the network on
# the first run), plus dpkg-deb and lintian. Cache: STATION_AGENT_CACHE (~/.cache/station-agent).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SCRIPT=test:package
# shellcheck source=lib/script.sh
source "$REPO/scripts/lib/script.sh"
# scripts/package.sh, run below, keeps its downloads in the same place.
export STATION_AGENT_CACHE=$CACHE
# shellcheck source=lib/targets.sh
source "$REPO/scripts/lib/targets.sh"

command -v lintian >/dev/null || {
  [[ $EUID -eq 0 ]] || die "lintian is missing: sudo apt-get install -y lintian"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends lintian
}
target_host_tools arm64
target_sysroot

# STATION_AGENT_PACKAGE_DEBS: packages built already (scripts/release.sh proves the ones it
# publishes, not a second build of them).
if [[ -n ${STATION_AGENT_PACKAGE_DEBS:-} ]]; then
  OUT=$STATION_AGENT_PACKAGE_DEBS
  say "The packages in $OUT (STATION_AGENT_PACKAGE_DEBS)"
else
  OUT=$CACHE/package/out
  say "Building the packages (scripts/package.sh)"
  "$REPO/scripts/package.sh" --arch arm64 --arch amd64 --out "$OUT"
fi
VERSION=$(node -p "require('$REPO/package.json').version")
DEB_ARM64=$OUT/station-agent_${VERSION}_arm64.deb
DEB_AMD64=$OUT/station-agent_${VERSION}_amd64.deb
# What the build took, when it ran here (the packages and lintian).
built=${STATION_AGENT_PACKAGE_DEBS:+built before}
built=${built:-the packages and lintian took $(elapsed)}

ROOT=$CACHE/package/root-arm64
say "Unpacking $(basename "$DEB_ARM64") into $ROOT"
rm -rf "$ROOT"
mkdir -p "$ROOT"
dpkg-deb -x "$DEB_ARM64" "$ROOT"
target_qemu_wrappers "$ROOT/opt/station-agent/node/bin/node" "$CACHE/package/bin"

say "test/package: the arm64 agent under qemu-aarch64, the amd64 package's maintainer scripts"
(cd "$REPO" &&
  STATION_AGENT_PACKAGE_ROOT=$ROOT STATION_AGENT_PACKAGE_ARCH=arm64 STATION_AGENT_NODE=$ARM_NODE \
    STATION_AGENT_CLI=$ROOT/opt/station-agent/bin/station-agent STATION_AGENT_ARM64_BIN=$BIN STATION_AGENT_DEB_AMD64=$DEB_AMD64 \
    npx vitest run --config test/package/vitest.config.ts)

say "package: passed in $(elapsed) (wall time; $built)"
