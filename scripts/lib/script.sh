# Sourced first by scripts/package.sh, scripts/test-arm64.sh and scripts/test-package.sh: what
# each prints and where each keeps its downloads, written once.
#
#   say TEXT      a step (==> TEXT)
#   note TEXT     a detail of the step, indented
#   die TEXT      the error, named by the script (SCRIPT), and exit 1
#   elapsed       the wall time since the script started, e.g. 3m07s
#
# Any failing command prints "SCRIPT: FAILED after <elapsed>" (set -e ends the script).
# Needs SCRIPT (the name in messages) and REPO set by the caller; sets CACHE (downloads and
# builds kept between runs: STATION_AGENT_CACHE, default ~/.cache/station-agent).

started=$SECONDS
CACHE=${STATION_AGENT_CACHE:-${STATION_AGENT_ARM64_CACHE:-$HOME/.cache/station-agent}}

say() { printf '\n==> %s\n' "$*"; }
note() { printf '    %s\n' "$*"; }
die() {
  printf '%s: %s\n' "$SCRIPT" "$*" >&2
  exit 1
}
elapsed() { printf '%dm%02ds' $(((SECONDS - started) / 60)) $(((SECONDS - started) % 60)); }
trap 'printf "\n%s: FAILED after %s\n" "$SCRIPT" "$(elapsed)" >&2' ERR
