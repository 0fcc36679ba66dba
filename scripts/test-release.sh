#!/usr/bin/env bash
# `npm run test:release`: the signed apt repository and upgrades through apt, in a Debian 12
# root file system built by mmdebstrap from Debian's own packages. Not part of `npm test`
# (minutes: the packages, a root file system, apt in it).
#
#   1. Two throwaway signing keys (gpg, never kept): the release's, and another.
#   2. scripts/release.sh builds both packages and lays out the repository, signed
#      (STATION_AGENT_RELEASE_DEBS=DIR takes packages built already; test:package is left to
#      `npm run release` itself: --no-test).
#   3. A newer version: the same packages repacked with a higher version and one more queue
#      migration (what a release that changes the queue's schema ships), published into
#      stable by release.sh.
#   4. In the root file system (chroot, amd64), docs/INSTALL.md's own commands (the blocks it
#      marks `<!-- test:release ID -->`, run as they are with REPO a file: URI): the keyring in
#      /etc/apt/keyrings, a deb822 .sources with Signed-By, `apt install station-agent`; a
#      queue with detections (`station-agent ingest` of a real result file); the automatic
#      updates' file and commands: `unattended-upgrade --dry-run` with the documented
#      Origins-Pattern picks the newer version; `apt-mark hold` keeps the installed one through
#      `apt-get upgrade` and unattended-upgrades, and doctor's update check says so; `apt-mark
#      unhold`; `apt-get upgrade` takes it, with the config unchanged, the queue's items kept
#      and its migration run; `apt list -a` and `apt install station-agent=<older>` is refused
#      by the older package's preinst (the queue has a migration it cannot undo), the newer
#      one staying installed; the arm64 package is served and verified (apt-get download
#      station-agent:arm64); and a repository signed by another key is refused.
#   5. test/release (vitest): a third version published, the agent running in the root and
#      uploading to the local service with every answer late, `unattended-upgrade` upgrades it:
#      prerm stops it with uploads open, postinst migrates and starts the new one, everything
#      is uploaded exactly once. systemd does not run in the root: test/release/systemctl
#      stands in for it (start as User=, stop by SIGTERM and a wait up to TimeoutStopSec=, the
#      generators at daemon-reload).
#
# `npm run test:release -- --arch arm64` runs steps 1 and 2, then, in a Debian 12 arm64 root
# file system (mmdebstrap --arch=arm64: every program in it, apt's and the agent's, runs under
# qemu-aarch64): docs/INSTALL.md's add-repository commands install the arm64 package from the
# repository; test/release/arm64-root.test.ts checks its --version and uploads a backlog
# exactly once; then a newer version with one more queue migration is published and
# `apt-get upgrade` takes it there, the queue kept and migrated by the arm64 postinst. A chroot of arm64 programs needs binfmt_misc, the kernel's and so the whole
# machine's: this mode mounts it if needed and registers qemu-aarch64 (qemu-user-static and
# binfmt-support, Debian's, with the F flag a chroot needs; arch-test for mmdebstrap) when it
# is not.
#
#   scripts/test-release.sh [--arch amd64|arm64]
#
# Needs Debian with apt, root (chroot, mount), the network for Debian's packages on the first
# run. Cache: STATION_AGENT_CACHE (~/.cache/station-agent).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SCRIPT=test:release
# shellcheck source=lib/script.sh
source "$REPO/scripts/lib/script.sh"
export STATION_AGENT_CACHE=$CACHE
ARCH=amd64
while [[ $# -gt 0 ]]; do
  case $1 in
    --arch) [[ ${2:-} == amd64 || ${2:-} == arm64 ]] || die "--arch needs amd64 or arm64"; ARCH=$2; shift 2 ;;
    -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
[[ $EUID -eq 0 ]] || die "run as root (chroot, mount): sudo npm run test:release"

missing=()
for tool in mmdebstrap reprepro gpg; do command -v "$tool" >/dev/null || missing+=("$tool"); done
if [[ $ARCH == arm64 ]]; then
  command -v qemu-aarch64-static >/dev/null || missing+=(qemu-user-static)
  command -v update-binfmts >/dev/null || missing+=(binfmt-support)
  # mmdebstrap checks with it that the machine runs arm64 programs.
  command -v arch-test >/dev/null || missing+=(arch-test)
fi
if ((${#missing[@]})); then
  missing=("${missing[@]/gpg/gnupg}")
  say "Installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" ||
    { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"; }
fi

WORK=$(mktemp -d /tmp/station-agent-release-test.XXXXXX)
ROOT=$WORK/root
failures=0
cleanup() {
  gpgconf --kill all >/dev/null 2>&1 || true
  if mountpoint -q "$ROOT/proc" 2>/dev/null; then umount "$ROOT/proc" || umount -l "$ROOT/proc" || true; fi
  # Never a removal through a mount that is still there.
  if mountpoint -q "$ROOT/proc" 2>/dev/null; then
    printf '%s: %s is still mounted: %s is left in place\n' "$SCRIPT" "$ROOT/proc" "$WORK" >&2
  else
    rm -rf --one-file-system "$WORK"
  fi
}
trap cleanup EXIT
pass() { note "ok: $*"; }
fail() { printf '    FAILED: %s\n' "$*" >&2; failures=$((failures + 1)); }
check() { # check WHAT COMMAND...: passes when the command succeeds
  local what=$1
  shift
  if "$@"; then pass "$what"; else fail "$what"; fi
}
inroot() { chroot "$ROOT" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C DEBIAN_FRONTEND=noninteractive "$@"; }
# The block docs/INSTALL.md marks `<!-- test:release ID: ... -->` (the fenced block after it):
# the commands an owner is told to type are the ones run here.
doc_block() {
  local block
  block=$(awk -v id="$1" '
    index($0, "<!-- test:release " id ":") == 1 { found = 1; next }
    found && /^```/ { if (inside) exit; inside = 1; next }
    found && inside { print }
  ' "$REPO/docs/INSTALL.md")
  [[ -n $block ]] || die "docs/INSTALL.md has no block marked test:release $1"
  printf '%s\n' "$block"
}
# Runs a block of docs/INSTALL.md in the root as an owner would (sudo is Debian's; apt's
# questions answered yes, as the owner does).
run_doc() { # run_doc ID [sed expressions...]: the block, edited by the expressions
  local id=$1 block expr
  shift
  block=$(doc_block "$id")
  for expr in "$@"; do block=$(printf '%s\n' "$block" | sed -e "$expr"); done
  printf '%s\n' "$block" | sed 's/^/      $ /'
  { yes || true; } | inroot sh -ec "$block"
}

# A Debian 12 root file system for ARCH at ROOT, with the packages INCLUDE (a comma list), /proc
# mounted and /srv for the repositories (copied in: no bind mount of this machine's folders).
# mmdebstrap builds it once from Debian's packages and keeps it (a copy is used each run),
# named by ARCH and INCLUDE, so a new list builds a new one.
make_root() { # make_root ARCH INCLUDE
  local base
  base=$CACHE/release/rootfs-bookworm-$1-$(printf '%s' "$2" | sha1sum | cut -c1-8)
  if [[ ! -d $base/usr ]]; then
    mkdir -p "$(dirname "$base")"
    rm -rf "$base.tmp"
    mmdebstrap --arch="$1" --variant=apt --include="$2" bookworm "$base.tmp"
    mv "$base.tmp" "$base"
  fi
  cp -a "$base" "$ROOT"
  # /proc for the agent's Node.js; /dev is mmdebstrap's own device nodes.
  mount -t proc proc "$ROOT/proc"
  # The machine's name, as a station's /etc/hosts has it (sudo looks it up).
  grep -qw "$(hostname)" "$ROOT/etc/hosts" 2>/dev/null || echo "127.0.1.1 $(hostname)" >>"$ROOT/etc/hosts"
  mkdir -p "$ROOT/srv"
}
installed() { inroot dpkg-query -W -f='${Version}' station-agent 2>/dev/null; }
# docs/INSTALL.md's first commands as they are, REPO a file: URI (curl reads it too); the
# editor and the start are the owner's. VERSION is what they must install.
install_from_docs() { # install_from_docs REPO-URI VERSION
  note "docs/INSTALL.md, add-repository:"
  run_doc add-repository '/sudo nano /d' '/systemctl start/d' "1i REPO=$1" >"$WORK/install.log" 2>&1 ||
    { cat "$WORK/install.log"; fail "docs/INSTALL.md's commands: the keyring, the .sources, apt update, apt install station-agent"; }
  check "docs/INSTALL.md's commands install $2 from the file: source" test "$(installed)" = "$2"
}
# test/release/systemctl in systemctl's own place (diverted, as Debian replaces a package's
# file): unattended-upgrade runs dpkg, and so deb-systemd-invoke, with a PATH of its own,
# without /usr/local. Then test/release's tests can run (they need this tree built).
standin_systemctl() {
  inroot dpkg-divert --quiet --local --rename --divert /usr/bin/systemctl.real --add /usr/bin/systemctl
  install -m 0755 "$REPO/test/release/systemctl" "$ROOT/usr/bin/systemctl"
  [[ -f $REPO/dist/bundle/main.js ]] || (cd "$REPO" && npm run build >/dev/null)
}
# As the service's user, as the unit runs it: root would leave SQLite's -shm file root's.
asagent() { inroot setpriv --reuid=station-agent --regid=station-agent --clear-groups "$@"; }
# The queue's detections by state, as the agent's own status says.
queued() { asagent station-agent status --offline --json | node -e 'let t=""; process.stdin.on("data", (d) => (t += d)).on("end", () => { const q = JSON.parse(t).queue; console.log(JSON.stringify(q.detections)); })'; }
# The queue's schema version, and whether repack's migration (its table) ran: "<version> <0|1>".
queue_schema() {
  asagent /opt/station-agent/node/bin/node -e '
    const D = require("/opt/station-agent/node_modules/better-sqlite3");
    const db = new D("/var/lib/station-agent/queue.db", { readonly: true });
    console.log(db.pragma("user_version", { simple: true }), db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = ?").get("release_test").n);'
}
# A newer version: the package repacked with VERSION and one more queue migration (what a
# release that changes the queue's schema ships). Needs SCHEMA, the package's own.
repack() { # repack IN.deb VERSION OUT-DIR: the same package, VERSION, migration SCHEMA+1
  local in=$1 dir=$3 tree bundle
  tree=$(mktemp -d "$WORK/repack.XXXXXX")
  dpkg-deb -R "$in" "$tree"
  sed -i "s/^Version: .*/Version: $2/" "$tree/DEBIAN/control"
  sed -i -e "s/^SA_QUEUE_SCHEMA=.*/SA_QUEUE_SCHEMA=$((SCHEMA + 1))/" -e "s/^SA_PACKAGE_VERSION=.*/SA_PACKAGE_VERSION=$2/" "$tree"/DEBIAN/{preinst,postinst,prerm,postrm}
  node -e 'const f = process.argv[1], p = require(f); p.version = process.argv[2]; require("fs").writeFileSync(f, JSON.stringify(p, null, 2) + "\n")' \
    "$tree/opt/station-agent/package.json" "$2"
  bundle=$(grep -l 'const SCHEMA_VERSION = MIGRATIONS.length;' "$tree"/opt/station-agent/dist/bundle/*.js)
  [[ -n $bundle ]] || die "no bundle file holds the queue's migrations"
  node -e '
    const fs = require("fs"), [file, version] = process.argv.slice(1);
    const anchor = "\n];\nconst SCHEMA_VERSION = MIGRATIONS.length;";
    const text = fs.readFileSync(file, "utf8");
    if (!text.includes(anchor)) throw new Error("the migrations list ends differently");
    fs.writeFileSync(file, text.replace(anchor, `,\n\t{ version: ${version}, name: "release test", up: (db) => db.exec("CREATE TABLE release_test (at INTEGER)") }${anchor}`));
  ' "$bundle" "$((SCHEMA + 1))"
  (cd "$tree" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) >"$tree/DEBIAN/md5sums"
  mkdir -p "$dir"
  dpkg-deb --build --root-owner-group -Zgzip "$tree" "$dir/" >/dev/null
  rm -rf "$tree"
}
# VERSION (repack of the packages in DEBS, into DIR) published into stable of the repository,
# and the root's copy of it (/srv/repo) replaced.
publish() { # publish VERSION DIR
  local deb
  for deb in "$DEBS"/*.deb; do repack "$deb" "$1" "$2"; done
  "$REPO/scripts/release.sh" --key "$WORK/release.key" --repo "$WORK/repo" --suite stable --debs "$2" --no-test >/dev/null
  rm -rf "$ROOT/srv/repo"
  cp -a "$WORK/repo" "$ROOT/srv/"
}
finish() {
  if ((failures)); then
    die "$failures check(s) failed, after $(elapsed)"
  fi
  say "release ($ARCH): passed in $(elapsed)"
  exit 0
}
# arm64 programs run in a chroot only through binfmt_misc: qemu-aarch64 registered with the F
# flag (the kernel opens the interpreter when it is registered, so the root need not hold it).
binfmt_arm64() {
  local entry=/proc/sys/fs/binfmt_misc/qemu-aarch64
  if [[ ! -e /proc/sys/fs/binfmt_misc/status ]]; then
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc ||
      die "binfmt_misc is not mounted and cannot be (mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc): no arm64 root file system here"
  fi
  [[ -e $entry ]] || update-binfmts --enable qemu-aarch64 ||
    die "qemu-aarch64 is not registered in binfmt_misc and update-binfmts --enable qemu-aarch64 failed"
  [[ $(head -1 "$entry") == enabled ]] || die "$entry is disabled (update-binfmts --enable qemu-aarch64)"
  grep -q '^flags: .*F' "$entry" || die "$entry has no F flag ($(grep '^flags' "$entry")): a chroot cannot find its interpreter (qemu-user-static registers it so)"
  note "binfmt_misc: $(grep -E '^(interpreter|flags)' "$entry" | tr '\n' ' ')"
}

say "1. Throwaway keys"
export GNUPGHOME=$WORK/gnupg
mkdir -m 0700 "$GNUPGHOME"
gpg --batch --quiet --passphrase '' --quick-gen-key 'station-agent release test <release@example.invalid>' ed25519 sign never
gpg --batch --armor --export-secret-keys >"$WORK/release.key"
other=$WORK/gnupg-other
mkdir -m 0700 "$other"
GNUPGHOME=$other gpg --batch --quiet --passphrase '' --quick-gen-key 'someone else <other@example.invalid>' ed25519 sign never
GNUPGHOME=$other gpg --batch --armor --export-secret-keys >"$WORK/other.key"

say "2. scripts/release.sh: the packages and the repository (stable)"
DEBS=$WORK/debs-old
mkdir -p "$DEBS"
if [[ -n ${STATION_AGENT_RELEASE_DEBS:-} ]]; then
  cp "$STATION_AGENT_RELEASE_DEBS"/station-agent_*.deb "$DEBS/"
else
  "$REPO/scripts/package.sh" --arch arm64 --arch amd64 --out "$DEBS"
fi
"$REPO/scripts/release.sh" --key "$WORK/release.key" --repo "$WORK/repo" --suite stable --debs "$DEBS" --no-test
OLD=$(dpkg-deb -f "$(ls "$DEBS"/*_amd64.deb)" Version)
SCHEMA=$(dpkg-deb -I "$(ls "$DEBS"/*_amd64.deb)" preinst | sed -n 's/^SA_QUEUE_SCHEMA=//p')
[[ $SCHEMA =~ ^[0-9]+$ ]] || die "the package's preinst names no SA_QUEUE_SCHEMA"
# The older release, kept where an owner keeps one (a second folder, a USB stick).
cp -a "$WORK/repo" "$WORK/repo-old"

if [[ $ARCH == arm64 ]]; then
  say "3. A Debian 12 arm64 root file system (mmdebstrap --arch=arm64, qemu-aarch64 through binfmt_misc)"
  binfmt_arm64
  # What the package needs (systemd, libflac12, flac) and what docs/INSTALL.md's commands use.
  make_root arm64 systemd,libflac12,flac,sudo,curl
  check "the root's programs are arm64 (dpkg --print-architecture)" test "$(inroot dpkg --print-architecture)" = arm64
  cp -a "$WORK/repo" "$ROOT/srv/"
  say "4. docs/INSTALL.md's commands in it, from the repository"
  install_from_docs file:///srv/repo "$OLD"
  check "apt took the arm64 package" test "$(inroot dpkg-query -W -f='${Architecture}' station-agent)" = arm64
  say "5. The arm64 agent: --version, and an upload (test/release/arm64-root.test.ts)"
  standin_systemctl
  if (cd "$REPO" && STATION_AGENT_RELEASE_ROOT=$ROOT STATION_AGENT_RELEASE_VERSION=$OLD \
    npx vitest run --config test/release/vitest.config.ts test/release/arm64-root.test.ts); then
    pass "the arm64 agent from the repository prints its version and uploads exactly once"
  else
    fail "the arm64 agent in the arm64 root file system (test/release/arm64-root.test.ts)"
    tail -20 "$ROOT/var/log/systemctl-standin.log" "$ROOT/var/log/station-agent.log" 2>/dev/null | sed 's/^/      /'
  fi
  say "6. A newer version with one more queue migration: apt-get upgrade in the arm64 root"
  NEW=$OLD+upgrade1
  publish "$NEW" "$WORK/debs-new"
  # The agent stays stopped (no systemd here: postinst starts nothing); the test's queue stays.
  rm -rf "$ROOT/run/systemd/system"
  before=$(queued)
  inroot apt-get -q update >"$WORK/update.log" 2>&1 || { cat "$WORK/update.log"; die "apt-get update failed"; }
  inroot apt-get -q -y upgrade >"$WORK/upgrade.log" 2>&1 || { cat "$WORK/upgrade.log"; fail "apt-get upgrade"; }
  check "apt-get upgrade takes $NEW (arm64)" test "$(installed)" = "$NEW"
  check "the queue's items are kept ($before)" test "$(queued)" = "$before"
  schema=$(queue_schema)
  check "postinst ran the new migration ($((SCHEMA + 1))) on the queue, under qemu (schema, table: $schema)" test "$schema" = "$((SCHEMA + 1)) 1"
  check "the upgraded agent prints its version" test "$(inroot station-agent --version)" = "$NEW"
  finish
fi

say "3. A newer version with one more queue migration, into stable"
NEW=$OLD+upgrade1
rm -rf "$WORK/debs-new"
for deb in "$DEBS"/*.deb; do repack "$deb" "$NEW" "$WORK/debs-new"; done
"$REPO/scripts/release.sh" --key "$WORK/release.key" --repo "$WORK/repo" --suite stable --debs "$WORK/debs-new" --no-test
check "release-metrics.txt names $NEW for stable" grep -q "suite=\"stable\",version=\"$NEW\"" "$WORK/repo/release-metrics.txt"
check "SHA256SUMS is signed by the release key" gpg --batch --quiet --verify "$WORK/repo/SHA256SUMS.asc" "$WORK/repo/SHA256SUMS"
check "SHA256SUMS matches the pool" bash -c "cd '$WORK/repo' && sha256sum --quiet -c SHA256SUMS"
check "dists/stable has InRelease and Release.gpg" test -s "$WORK/repo/dists/stable/InRelease" -a -s "$WORK/repo/dists/stable/Release.gpg"
check "the repository holds no private key" bash -c "! grep -rl 'PRIVATE KEY' '$WORK/repo'"

say "4. A Debian 12 root file system (mmdebstrap, Debian's packages)"
# Debian 12 with apt, what the package needs (systemd, libflac12, flac), unattended-upgrades,
# and what docs/INSTALL.md's commands use (sudo, curl).
make_root amd64 systemd,libflac12,flac,unattended-upgrades,python3-apt,sudo,curl
cp -a "$WORK/repo" "$WORK/repo-old" "$ROOT/srv/"

install_from_docs file:///srv/repo-old "$OLD"
check "the keyring is the repository's" cmp -s "$ROOT/etc/apt/keyrings/station-agent.gpg" "$WORK/repo/station-agent-archive-keyring.gpg"
check "the .sources file names it in Signed-By" grep -qx 'Signed-By: /etc/apt/keyrings/station-agent.gpg' "$ROOT/etc/apt/sources.list.d/station-agent.sources"

# A station with a token and a queue: a real result file, queued by the agent's own ingest.
FIXTURE=$REPO/../shared/fixtures/real/birdnet-analyzer_ea464544_2022-03-02
mkdir -p "$ROOT/srv-input"
# Named by its recording start (YYYYMMDD_HHMMSS), as a recorder names its files. Its five
# detections are all below the default input.minConfidence 0.7 (the queue stayed empty, and
# the "queue kept" checks compared nothing): the config takes 0.1.
cp "$FIXTURE/soundscape.BirdNET.results.csv" "$ROOT/srv-input/20250501_120000.BirdNET.results.csv"
cat >"$ROOT/etc/station-agent/config.json" <<'EOF'
{
  "service": { "baseUrl": "http://127.0.0.1:9", "token": "release-test-token" },
  "station": { "latitude": 52.52, "longitude": 13.4, "timezone": "UTC" },
  "input": { "dir": "/srv-input", "format": "results", "minConfidence": 0.1 },
  "dataDir": "/var/lib/station-agent"
}
EOF
inroot chown station-agent:station-agent /etc/station-agent/config.json
chmod 0600 "$ROOT/etc/station-agent/config.json"
asagent station-agent ingest /srv-input >/dev/null
before=$(queued)
config_sum=$(sha256sum <"$ROOT/etc/station-agent/config.json")
check "the queue holds the ingested detections ($before)" node -e 'const c = JSON.parse(process.argv[1]); process.exit(c.pending > 0 ? 0 : 1)' "$before"

say "5. The newer version in the repository"
printf '%s\n' 'Types: deb' 'URIs: file:/srv/repo' 'Suites: stable' 'Components: main' \
  'Signed-By: /etc/apt/keyrings/station-agent.gpg' >"$ROOT/etc/apt/sources.list.d/station-agent.sources"
inroot apt-get -q update >"$WORK/update.log" 2>&1 || { cat "$WORK/update.log"; die "apt-get update failed"; }
# docs/INSTALL.md's automatic updates: its configuration file and its commands.
doc_block automatic-updates.conf >"$ROOT/etc/apt/apt.conf.d/52station-agent"
note "docs/INSTALL.md, automatic-updates:"
run_doc automatic-updates >"$WORK/uu.log" 2>&1 || { cat "$WORK/uu.log"; fail "docs/INSTALL.md's automatic-updates commands"; }
check "unattended-upgrade --dry-run with the documented origin pattern would take station-agent $NEW" \
  grep -Eq "^(Packages that will be upgraded:|All upgrades installed).*station-agent|station-agent.*$NEW" "$WORK/uu.log"
grep -E "station-agent|Packages that will be upgraded|Allowed origins" "$WORK/uu.log" | head -5 | sed 's/^/      /'

note "docs/INSTALL.md, hold:"
run_doc hold >/dev/null || fail "docs/INSTALL.md's hold command"
inroot apt-get -q -y upgrade >"$WORK/upgrade-held.log" 2>&1
check "apt-mark hold keeps $OLD through apt-get upgrade" test "$(installed)" = "$OLD"
inroot unattended-upgrade --dry-run --debug >"$WORK/uu-held.log" 2>&1 || true
check "unattended-upgrade leaves the held package" bash -c "! grep -Eq '^Packages that will be upgraded:.*station-agent' '$WORK/uu-held.log'"
update_check() { asagent station-agent doctor --offline --json 2>/dev/null | node -e 'let t=""; process.stdin.on("data", (d) => (t += d)).on("end", () => { const c = JSON.parse(t).checks.find((x) => x.id === "update"); console.log(`${c.status}: ${c.detail}`); })'; }
held=$(update_check)
check "doctor's update check names the held version and the newer one offered ($held)" bash -c '[[ $1 == warn:* && $1 == *"$2"* && $1 == *hold* ]]' _ "$held" "$NEW"
note "docs/INSTALL.md, unhold:"
run_doc unhold >/dev/null || fail "docs/INSTALL.md's unhold command"
check "apt-mark unhold: nothing held" test -z "$(inroot apt-mark showhold)"

inroot apt-get -q -y upgrade >"$WORK/upgrade.log" 2>&1 || { cat "$WORK/upgrade.log"; fail "apt-get upgrade"; }
check "apt-get upgrade takes $NEW" test "$(installed)" = "$NEW"
check "the config is unchanged" test "$(sha256sum <"$ROOT/etc/station-agent/config.json")" = "$config_sum"
after=$(queued)
check "the queue's items are kept ($after)" test "$after" = "$before"
schema=$(queue_schema)
check "postinst ran the new migration ($((SCHEMA + 1))) on the queue (schema, table: $schema)" test "$schema" = "$((SCHEMA + 1)) 1"
check "postinst said the queue is up to date" grep -q "queue of .*config.json: up to date" "$WORK/upgrade.log"

say "6. Going back: the older version, from the older repository"
printf '%s\n' 'Types: deb' 'URIs: file:/srv/repo file:/srv/repo-old' 'Suites: stable' 'Components: main' \
  'Signed-By: /etc/apt/keyrings/station-agent.gpg' >"$ROOT/etc/apt/sources.list.d/station-agent.sources"
inroot apt-get -q update >/dev/null 2>&1
note "docs/INSTALL.md, downgrade:"
if run_doc downgrade "s/<older version>/$OLD/" >"$WORK/downgrade.log" 2>&1; then
  fail "docs/INSTALL.md's apt install station-agent=$OLD was not refused"
else
  pass "docs/INSTALL.md's apt install station-agent=$OLD is refused"
fi
check "apt list -a station-agent lists $OLD and $NEW" bash -c "grep -q '$OLD' '$WORK/downgrade.log' && grep -q '$NEW' '$WORK/downgrade.log'"
check "the refusal names the queue's schema and the older version's" grep -q "has schema version $((SCHEMA + 1)); this version of station-agent knows $SCHEMA" "$WORK/downgrade.log"
grep "station-agent:" "$WORK/downgrade.log" | head -3 | sed 's/^/      /'
check "$NEW stays installed" test "$(installed)" = "$NEW"
check "dpkg is consistent after the refusal (dpkg --audit)" test -z "$(inroot dpkg --audit)"
check "the queue's items are still there" test "$(queued)" = "$before"

say "7. arm64: the repository serves the arm64 package, verified"
inroot dpkg --add-architecture arm64
inroot apt-get -q update >/dev/null 2>&1
(cd "$ROOT/tmp" && inroot sh -c "cd /tmp && apt-get -q download station-agent:arm64=$NEW" >/dev/null 2>&1)
check "apt-get download station-agent:arm64 ($NEW)" test -s "$ROOT/tmp/station-agent_${NEW/+/%2b}_arm64.deb" -o -s "$ROOT/tmp/station-agent_${NEW}_arm64.deb"

say "8. A repository signed by another key"
EVIL=$NEW+other1
for deb in "$WORK"/debs-new/*.deb; do repack "$deb" "$EVIL" "$WORK/debs-other"; done
GNUPGHOME=$other "$REPO/scripts/release.sh" --key "$WORK/other.key" --repo "$WORK/repo-other" --suite stable --debs "$WORK/debs-other" --no-test >/dev/null
cp -a "$WORK/repo-other" "$ROOT/srv/"
printf '%s\n' 'Types: deb' 'URIs: file:/srv/repo-other' 'Suites: stable' 'Components: main' \
  'Signed-By: /etc/apt/keyrings/station-agent.gpg' >"$ROOT/etc/apt/sources.list.d/station-agent.sources"
inroot apt-get -q update >"$WORK/update-other.log" 2>&1 || true
check "apt refuses its signature" grep -Eq "NO_PUBKEY|not signed|signatures couldn't be verified" "$WORK/update-other.log"
grep -E "NO_PUBKEY|not signed|couldn't be verified" "$WORK/update-other.log" | head -2 | sed 's/^/      /'
check "apt offers nothing from it" bash -c "! chroot '$ROOT' apt-cache policy station-agent | grep -q '$EVIL'"

say "9. An upgrade by unattended-upgrades while the agent uploads (test/release)"
# A newer version again (the same migration as $NEW: nothing to migrate), published into the
# repository the root trusts; systemd's stand-in (test/release/systemctl) runs the agent.
NEWER=$OLD+upgrade2
publish "$NEWER" "$WORK/debs-newer"
printf '%s\n' 'Types: deb' 'URIs: file:/srv/repo' 'Suites: stable' 'Components: main' \
  'Signed-By: /etc/apt/keyrings/station-agent.gpg' >"$ROOT/etc/apt/sources.list.d/station-agent.sources"
inroot apt-get -q update >"$WORK/update-newer.log" 2>&1 || { cat "$WORK/update-newer.log"; die "apt-get update failed"; }
standin_systemctl
if (cd "$REPO" && STATION_AGENT_RELEASE_ROOT=$ROOT STATION_AGENT_RELEASE_FROM=$NEW STATION_AGENT_RELEASE_TO=$NEWER \
  npx vitest run --config test/release/vitest.config.ts test/release/upgrade-in-flight.test.ts); then
  pass "unattended-upgrade took $NEWER while uploads were in flight: exactly once"
else
  fail "the upgrade while uploads are in flight (test/release/upgrade-in-flight.test.ts)"
  tail -20 "$ROOT/var/log/systemctl-standin.log" "$ROOT/var/log/station-agent.log" 2>/dev/null | sed 's/^/      /'
fi

finish
