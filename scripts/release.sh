#!/usr/bin/env bash
# `npm run release`: a release of station-agent into a signed apt repository, what a forge's
# CI runs on a tag (.forgejo/workflows/release.yml calls nothing else). In order:
#
#   1. builds both packages (scripts/package.sh: arm64 and amd64, lintian);
#   2. proves them (npm run test:package, on the packages just built);
#   3. includes them into the repository's suite with reprepro, which writes
#      dists/<suite>/{InRelease,Release,Release.gpg}, the Packages indexes and pool/,
#      signed with the given key; exports that key's public part beside it
#      (station-agent-archive-keyring.gpg, for /etc/apt/keyrings); writes
#      release-metrics.txt (the newest version of each suite and when it was published:
#      docs/FLEET.md) and SHA256SUMS of the packages and the keyring, signed (SHA256SUMS.asc).
#
#   scripts/release.sh --key KEY | --key-env NAME  --repo DIR [--tag TAG]
#                      [--suite stable|testing] [--db DIR] [--debs DIR] [--no-test]
#
#   --key KEY    the signing key: a file holding an (unprotected) OpenPGP secret key, imported
#                into a temporary GnuPG home that is removed afterwards, or a key id or
#                fingerprint in $GNUPGHOME (a release machine's own keyring).
#   --key-env NAME  the same key file's text in the environment variable NAME (a forge's
#                secret), imported the same way. The key never enters the repository.
#   --tag TAG    the tag being released (v<version>, as a forge names it): it must name
#                package.json's version, and a version with a ~ (v0.2.0~rc1) goes to testing
#                unless --suite says otherwise.
#   --repo DIR   the repository as it is published (serve it as it is: docs/INSTALL.md);
#                created when missing, kept between releases.
#   --suite S    stable (default; testing for a --tag with a ~): a suite per channel.
#   --db DIR     reprepro's own conf/ and db/ (what is in the repository; never published);
#                default DIR.db beside --repo. Keep it with the repository.
#   --debs DIR   take the packages from DIR instead of building them (station-agent_*.deb).
#   --no-test    skip step 2 (only for a repository that is not served: a test's).
#
# A suite holds the newest version it was given; older packages stay in pool/ and in
# SHA256SUMS. Going back is `apt install station-agent=<version>` of another configured suite
# (testing back to stable), or `apt install ./<older>.deb` from pool/. Needs Debian with
# apt and npm (any Node.js: npm ci installs the pinned one, which runs everything after it);
# root the first time (reprepro, gnupg, lintian and the build's tools, from Debian's apt).
# Nothing needs to run before it: it runs npm ci itself when node_modules is missing or old.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SCRIPT=release
# shellcheck source=lib/script.sh
source "$REPO/scripts/lib/script.sh"
# shellcheck source=lib/release-metrics.sh
source "$REPO/scripts/lib/release-metrics.sh"
# shellcheck source=lib/targets.sh
source "$REPO/scripts/lib/targets.sh"
export STATION_AGENT_CACHE=$CACHE

key='' key_env='' tag='' repo='' suite='' db='' debs='' run_tests=yes
while [[ $# -gt 0 ]]; do
  case $1 in
    --key) [[ $# -ge 2 ]] || die "--key needs a key file or id"; key=$2; shift 2 ;;
    --key-env) [[ $# -ge 2 ]] || die "--key-env needs the name of an environment variable"; key_env=$2; shift 2 ;;
    --tag) [[ $# -ge 2 ]] || die "--tag needs the tag's name"; tag=$2; shift 2 ;;
    --repo) [[ $# -ge 2 ]] || die "--repo needs a folder"; repo=$2; shift 2 ;;
    --suite) [[ $# -ge 2 ]] || die "--suite needs stable or testing"; suite=$2; shift 2 ;;
    --db) [[ $# -ge 2 ]] || die "--db needs a folder"; db=$2; shift 2 ;;
    --debs) [[ $# -ge 2 ]] || die "--debs needs a folder"; debs=$(cd "$2" && pwd); shift 2 ;;
    --no-test) run_tests=no; shift ;;
    -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
[[ -z $key || -z $key_env ]] || die "--key and --key-env: one signing key"
[[ -n $key || -n $key_env ]] || die "--key is missing: the key to sign the repository with (a secret key file, or a key id in \$GNUPGHOME; --key-env NAME: its text in \$NAME)"
[[ -n $repo ]] || die "--repo is missing: the folder of the repository"
if [[ -n $tag ]]; then
  version=$(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$REPO/package.json")
  [[ $tag == "v$version" ]] || die "--tag $tag does not name package.json's version $version (the tag is v$version)"
  [[ -n $suite ]] || case $version in *~*) suite=testing ;; *) suite=stable ;; esac
fi
suite=${suite:-stable}
case $suite in stable | testing) ;; *) die "--suite '$suite': stable or testing" ;; esac
# test:package's scenarios read the real analyzer output where it is kept (../shared/fixtures/real,
# never copied into this tree): said now rather than after minutes of building.
[[ $run_tests == no || -d $REPO/../shared/fixtures/real ]] ||
  die "test:package reads the analyzer fixtures from $(dirname "$REPO")/shared/fixtures/real, which is missing: put ../shared beside this tree"
mkdir -p "$repo"
repo=$(cd "$repo" && pwd)
db=${db:-$repo.db}
mkdir -p "$db"
db=$(cd "$db" && pwd)

# Debian's tools for the repository, installed once.
missing=()
command -v reprepro >/dev/null || missing+=(reprepro)
command -v gpg >/dev/null || missing+=(gnupg)
# scripts/package.sh checks the packages with lintian where it is installed: a release's always are.
[[ -n $debs ]] || command -v lintian >/dev/null || missing+=(lintian)
if ((${#missing[@]})); then
  [[ $EUID -eq 0 ]] || die "missing ${missing[*]}: run as root once, or: sudo apt-get install -y ${missing[*]}"
  say "Installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" ||
    { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"; }
fi

# The signing key. A key file, or a variable's, goes into a GnuPG home of its own, removed on exit.
if [[ -n $key_env ]]; then
  [[ -n ${!key_env:-} ]] || die "--key-env $key_env: the environment variable $key_env is empty or not set"
fi
if [[ -n $key_env || -f $key ]]; then
  GNUPGHOME=$(mktemp -d)
  export GNUPGHOME
  trap 'gpgconf --kill all >/dev/null 2>&1 || true; rm -rf "$GNUPGHOME"' EXIT
  if [[ -n $key_env ]]; then
    printf '%s\n' "${!key_env}" | gpg --batch --quiet --import 2>/dev/null || die "--key-env $key_env: not an OpenPGP secret key gpg can import"
  else
    gpg --batch --quiet --import "$key" 2>/dev/null || die "--key $key: not an OpenPGP secret key gpg can import"
  fi
  fingerprint=$(gpg --batch --with-colons --list-secret-keys | awk -F: '$1 == "fpr" { print $10; exit }')
else
  fingerprint=$(gpg --batch --with-colons --list-secret-keys -- "$key" 2>/dev/null | awk -F: '$1 == "fpr" { print $10; exit }') || true
fi
[[ -n ${fingerprint:-} ]] || die "--key${key_env:+-env} ${key:-$key_env}: no secret key to sign with"
say "Signing with $fingerprint"

# This tree's dependencies and its pinned Node.js, for the build and test:package.
[[ -n $debs && $run_tests == no ]] || target_node_modules

if [[ -z $debs ]]; then
  debs=$CACHE/release/debs
  rm -rf "$debs"
  say "1. Building the packages (scripts/package.sh)"
  "$REPO/scripts/package.sh" --arch arm64 --arch amd64 --out "$debs"
else
  say "1. Packages from $debs"
fi
mapfile -t packages < <(find "$debs" -maxdepth 1 -name 'station-agent_*.deb' | sort)
[[ ${#packages[@]} -gt 0 ]] || die "no station-agent_*.deb in $debs"
for deb in "${packages[@]}"; do note "$(basename "$deb"): $(dpkg-deb -f "$deb" Version) $(dpkg-deb -f "$deb" Architecture)"; done

if [[ $run_tests == yes ]]; then
  say "2. npm run test:package on these packages"
  STATION_AGENT_PACKAGE_DEBS=$debs "$REPO/scripts/test-package.sh"
else
  say "2. test:package skipped (--no-test)"
fi

say "3. The repository: $repo, suite $suite (reprepro; its state in $db)"
mkdir -p "$db/conf"
# A suite per channel. Origin and Label are what unattended-upgrades' Origins-Pattern names
# (docs/FLEET.md). A suite holds one version of the package (reprepro 5.3, Debian 12's);
# the older packages stay in pool/ (--keepunreferencedfiles), listed in SHA256SUMS.
: >"$db/conf/distributions"
for s in stable testing; do
  cat >>"$db/conf/distributions" <<EOF
Origin: station-agent
Label: station-agent
Suite: $s
Codename: $s
Architectures: arm64 amd64
Components: main
Description: station-agent, the $s channel
SignWith: $fingerprint

EOF
done
reprepro_() { reprepro --basedir "$db" --outdir "$repo" --keepunreferencedfiles --silent "$@"; }
reprepro_ export
for deb in "${packages[@]}"; do
  version=$(dpkg-deb -f "$deb" Version)
  arch=$(dpkg-deb -f "$deb" Architecture)
  if [[ -n $(reprepro_ -A "$arch" --list-format '${version}\n' list "$suite" station-agent | grep -Fx "$version") ]]; then
    note "$suite already has station-agent $version for $arch"
    continue
  fi
  reprepro_ includedeb "$suite" "$deb"
  note "included $(basename "$deb") into $suite"
  # When each version entered each suite: release-metrics.txt's publication time.
  grep -q "^$suite $version " "$db/published" 2>/dev/null || echo "$suite $version $(date +%s)" >>"$db/published"
done

# The public key apt checks the suites with (Signed-By), binary as /etc/apt/keyrings wants it.
gpg --batch --export "$fingerprint" >"$repo/station-agent-archive-keyring.gpg"
gpg --batch --armor --export "$fingerprint" >"$repo/station-agent-archive-keyring.asc"
echo "$fingerprint" >"$repo/station-agent-archive-keyring.fingerprint"

# The newest version of each suite, and when it entered it.
newest() {
  reprepro_ --list-format '${version}\n' list "$1" station-agent | sort -u |
    { local best='' v; while read -r v; do if [[ -z $best ]] || dpkg --compare-versions "$v" gt "$best"; then best=$v; fi; done; echo "$best"; }
}
for s in stable testing; do
  v=$(newest "$s")
  [[ -n $v ]] || continue
  at=$(awk -v s="$s" -v v="$v" '$1 == s && $2 == v { print $3; exit }' "$db/published" 2>/dev/null)
  echo "$s $v ${at:-$(date +%s)}"
done | release_metrics >"$repo/release-metrics.txt"

# Checksums of what an owner downloads by hand (the packages, the keyring), signed.
(cd "$repo" && find pool -name '*.deb' | LC_ALL=C sort | xargs sha256sum && sha256sum station-agent-archive-keyring.gpg) >"$repo/SHA256SUMS"
rm -f "$repo/SHA256SUMS.asc"
gpg --batch --yes --local-user "$fingerprint" --armor --detach-sign --output "$repo/SHA256SUMS.asc" "$repo/SHA256SUMS"

note "$(cat "$repo/release-metrics.txt" | grep -v '^#' | sed 's/^[^{]*//')"
note "dists/$suite: $(ls "$repo/dists/$suite" | tr "\n" " ")"
say "release: station-agent $(dpkg-deb -f "${packages[0]}" Version) in $suite of $repo, signed by $fingerprint, in $(elapsed)"
