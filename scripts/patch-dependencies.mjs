// `npm ci`'s last step in this tree (package.json's postinstall), and .ci/run's build of
// libFLAC's addon (`--build-flac-addon`).
//
// patches/ holds what we changed in a dependency, applied by patch-package:
// - flac-bindings: `EncoderBuilder.setDoMd5`, libFLAC's switch for the STREAMINFO MD5, which
//   flac-bindings does not expose. The daemon's encodes skip the MD5 with it: a third of a
//   level-0 encode's CPU (docs/ARCHITECTURE.md, the flac-bindings entry). It is C++: the addon
//   must be compiled after the patch. npm runs flac-bindings' own install (a prebuilt
//   download, or a build of the unpatched sources) before this script, so an addon older
//   than the patch is compiled again here, from the patched sources, with cmake-js.
//
// bin/install's installed tree has neither this script (package.json's postinstall then does
// nothing) nor patch-package (`npm ci --omit=dev`): nothing is patched there, its addon
// computes the MD5, and the encoder works without the switch (src/audio/flac-native.ts).
// The Debian package's addon is compiled from this tree's patched sources (scripts/lib/targets.sh).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'node_modules/.bin');
const PATCHES = path.join(ROOT, 'patches');
const FLAC = path.join(ROOT, 'node_modules/flac-bindings');
const FLAC_PATCHED_SOURCE = path.join(FLAC, 'src/encoder/encoder-builder.cpp');
const FLAC_ADDON = path.join(FLAC, 'build/Release/flac-bindings.node');

function run(command, args, cwd) {
  const r = spawnSync(command, args, { cwd, stdio: 'inherit' });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${path.basename(command)} ${args.join(' ')} exited with ${r.status}`);
}

function applyPatches() {
  const patchPackage = path.join(BIN, 'patch-package');
  if (!existsSync(patchPackage)) {
    process.stdout.write('patch-dependencies: patch-package is not installed (npm ci --omit=dev): patches/ not applied; flac-bindings keeps the STREAMINFO MD5\n');
    return false;
  }
  // flac-bindings is an optional dependency: where it did not install (no libflac-dev, no
  // compiler) its patch has nothing to apply to, and patch-package would fail the install.
  const missing = readdirSync(PATCHES)
    .filter((file) => file.endsWith('.patch'))
    .map((file) => file.slice(0, file.lastIndexOf('+')).replaceAll('+', '/'))
    .filter((name) => !existsSync(path.join(ROOT, 'node_modules', name)));
  if (missing.length > 0) {
    process.stdout.write(`patch-dependencies: ${missing.join(', ')} not installed (optional): patches/ not applied\n`);
    return false;
  }
  run(patchPackage, ['--error-on-fail'], ROOT);
  return true;
}

/** Compiles flac-bindings from its (patched) sources against the system's libFLAC. */
function buildFlacAddon() {
  const cmakeJs = path.join(BIN, 'cmake-js');
  if (!existsSync(cmakeJs)) throw new Error('patch-dependencies: cmake-js is missing (a development dependency of flac-bindings): npm ci');
  process.stdout.write('patch-dependencies: compiling flac-bindings from its patched sources (cmake-js, the system libFLAC)\n');
  run(cmakeJs, ['build', '-p', '2'], FLAC);
}

const buildAlways = process.argv.includes('--build-flac-addon');
const patched = applyPatches();
if (patched && existsSync(FLAC)) {
  // An addon built or downloaded before the patch lacks the switch: compile it again.
  const stale = existsSync(FLAC_ADDON) && statSync(FLAC_ADDON).mtimeMs < statSync(FLAC_PATCHED_SOURCE).mtimeMs;
  if (buildAlways) buildFlacAddon();
  else if (stale) {
    // flac-bindings is optional: without a compiler its unpatched addon still encodes.
    try {
      buildFlacAddon();
    } catch (err) {
      process.stderr.write(`patch-dependencies: flac-bindings was not compiled again (${err.message}): its addon keeps the STREAMINFO MD5\n`);
    }
  }
}
