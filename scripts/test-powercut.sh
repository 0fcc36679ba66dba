#!/usr/bin/env bash
# `npm run test:powercut`: exactly once across power cuts. The agent's dataDir sits on LazyFS
# (a FUSE file system that drops every write not fsynced when told to: a power cut for the
# files below it), built here from ../shared/tools/lazyfs without network access (about two
# minutes the first time; cached under STATION_AGENT_CACHE, default ~/.cache/station-agent).
# Needs root (FUSE, and apt-get install of LazyFS's build dependencies the first time).
#   POWERCUT_CUTS   cuts (default 24; a third of them while a request is in flight)
#   RELIABILITY_SEED   replays a run's random choices
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${STATION_AGENT_CACHE:-$HOME/.cache/station-agent}
lazyfs_src=$REPO/../shared/tools/lazyfs
[[ -x $lazyfs_src/build.sh ]] || [[ -f $lazyfs_src/build.sh ]] || { echo "test:powercut: $lazyfs_src/build.sh not found (../shared beside the checkout)" >&2; exit 1; }
[[ -e /dev/fuse ]] || { echo "test:powercut: /dev/fuse is missing: LazyFS needs FUSE" >&2; exit 1; }
LAZYFS=$(bash "$lazyfs_src/build.sh" "$cache/lazyfs" | tail -n 1)
export LAZYFS
cd "$REPO"
npm run build
exec npx vitest run --config test/powercut/vitest.config.ts "$@"
