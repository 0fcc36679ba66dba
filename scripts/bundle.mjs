// The CLI as it ships: tsc's modules under dist/ bundled into a few files under
// dist/bundle/ (run by `npm run build`, after tsc). Why: Node's ES module loader resolves,
// reads (through the thread pool) and compiles each of the agent's ~180 modules one by one.
// Node 26's compile cache (bin/station-agent turns it on under systemd) spares the compiles,
// not the rest: tsc's modules with the cache still cost the daemon's restart more than twice
// the CPU of this bundle, and some 10 MB more resident memory (BENCHMARKS.md, the cpu
// section's restart forms, which measure all four forms in every run).
//
// CommonJS chunks: the agent's sources are ES modules, the chunks are CommonJS (`require`),
// which Node loads synchronously, each file read, wrapped and run in one call, where its ES
// loader takes a round of promises per module (resolve, a read through the thread pool,
// link, evaluate) and its own machinery, compiled at each start. Measured with the same
// chunks in both forms (alternated, 15 restarts each in the bench's 0.1-CPU box): the
// daemon's restart to "running" 139 against 166 ms of CPU; `status --json` 90 against 106 ms,
// `--version` 38 against 44 (30 runs each, no box). The sources' semantics are kept:
// every chunk is strict; a dynamic import() becomes a lazy `require`, of our own modules and
// of packages alike (an import() would bring up Node's ES loader in the process);
// `import.meta.url` becomes the chunk's file URL (then rewritten, below). One thing the
// CommonJS form cannot keep: the default import of an ES module package (its interop would
// take the package's namespace for its default), so p-queue, the one such package, is
// bundled, and the build refuses another.
//
// What stays as it was:
// - npm packages are not bundled (external): installed as they are, loaded by Node; except
//   the CommonJS packages every daemon start loads, with what they require (BUNDLED_PACKAGES),
//   whose files Node's CommonJS loader would resolve, read and wrap one by one:
//   - pino (29 files): some 20 ms of CPU here against 14 ms as one module of the bundle
//     (twice that in the bench's 0.1-CPU box). Its transports (worker threads that load
//     files by path) are not used: the agent logs through a synchronous destination
//     (src/log/logger.ts);
//   - commander (7 files, every command): `--version` 56 against 62 ms of CPU, 40 runs each;
//   - better-sqlite3 (13 files, and `bindings`, which it no longer runs: its addon is a file
//     of node_modules that src/system/sqlite.ts names; the addon stays where it is built);
//   - p-queue, with eventemitter3 and p-timeout (the webhook's queue): see above;
// - every dynamic import() stays a chunk of its own, loaded only when reached, so a command
//   loads no more than it did module by module;
// - each module keeps its own `import.meta.url` (rewritten to the tsc module's URL, from
//   the chunk's own), so what it finds beside itself (the config validator's child
//   script, the FLAC worker, the schema the config cache hashes, package.json) is where
//   it was: dist/ keeps tsc's modules for those.
//
// - what the entry imports statically (the program, the command table, the error, redaction
//   and output helpers; the commands' definitions are imported lazily) is one chunk,
//   STATIC_CHUNK, whatever else imports those modules too: every command loads all of them
//   anyway, and each chunk the ES loader resolved, read and linked cost some 0.25 ms of CPU
//   here (less as CommonJS, still a file to find and read). Left to its defaults the
//   bundler split them over the entry and 6 more chunks, by which lazy chunks share them.
//
// dist/bundle/modules.json says which modules (relative to dist/) each chunk holds, so
// that the tests of what a command loads still name modules (test/cli/lazy-loading.test.ts).
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';
// First, the config validation's identity, beside tsc's modules (that script says why).
import './validation-identity.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(ROOT, 'dist');
const OUT = path.join(DIST, 'bundle');
const ENTRY = path.join(DIST, 'cli/main.js');

/** `import.meta.url` of `file` (a module under dist/), as an expression in a file of OUT. */
function ownUrl(file) {
  const relative = path.relative(OUT, file).split(path.sep).join('/');
  return `new URL(${JSON.stringify(relative)}, import.meta.url).href`;
}

/** npm packages bundled with our modules, with every package they import (pino's own, e.g. sonic-boom). */
const BUNDLED_PACKAGES = new Set(['pino', 'commander', 'better-sqlite3', 'p-queue']);
const NODE_MODULES = `${path.join(ROOT, 'node_modules')}/`;

/** The package a bare specifier names (`@scope/name/sub` -> `@scope/name`). */
function packageOf(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Only our modules (relative imports), the bundled packages and what those import are bundled; node: builtins never. */
function isExternal(id, importer) {
  if (id.startsWith('node:')) return true;
  if (id.startsWith('.') || path.isAbsolute(id)) return false;
  if (importer?.startsWith(NODE_MODULES)) return false;
  return !BUNDLED_PACKAGES.has(packageOf(id));
}

/** Whether the installed package `name` is an ES module package (`"type": "module"`). */
function isEsModulePackage(name) {
  try {
    return JSON.parse(readFileSync(path.join(NODE_MODULES, name, 'package.json'), 'utf8')).type === 'module';
  } catch {
    return false;
  }
}

/** The chunk of everything the entry imports statically (see the header). */
const STATIC_CHUNK = 'cli-static';

/** Fills `into` with the modules under dist/ that `entry` imports statically, directly or not, once the graph is built. */
function staticImportsOf(entry, into) {
  return {
    name: 'static-imports-of-the-entry',
    buildEnd() {
      const stack = [entry];
      while (stack.length > 0) {
        const id = stack.pop();
        if (into.has(id) || !id.startsWith(`${DIST}/`)) continue;
        into.add(id);
        stack.push(...(this.getModuleInfo(id)?.importedIds ?? []));
      }
    },
  };
}

const keepOwnUrl = {
  name: 'keep-own-import-meta-url',
  transform(code, id) {
    // `\0`: the bundler's own virtual modules (its runtime helpers).
    if (id.startsWith('\0')) return null;
    // A bundled package's module is taken as it is.
    if (id.startsWith(NODE_MODULES)) return null;
    if (!id.startsWith(`${DIST}/`)) throw new Error(`bundle: ${id} is outside ${DIST}: only tsc's modules are bundled`);
    // Only `import.meta.url` is rewritten: another property (dirname, resolve()) would
    // silently answer for dist/bundle/ instead of the module's own folder.
    const other = /import\.meta(?!\.url\b)/.exec(code);
    if (other) throw new Error(`bundle: ${path.relative(DIST, id)} uses import.meta other than import.meta.url, which the bundle does not keep`);
    if (!code.includes('import.meta.url')) return null;
    return { code: code.replaceAll('import.meta.url', `(${ownUrl(id)})`), map: null };
  },
};

rmSync(OUT, { recursive: true, force: true });
const entryStatic = new Set();
const { output } = await build({
  input: { main: ENTRY },
  platform: 'node',
  // Only the agent's own modules (relative imports) are bundled.
  external: isExternal,
  plugins: [keepOwnUrl, staticImportsOf(ENTRY, entryStatic)],
  logLevel: 'warn',
  output: {
    dir: OUT,
    // CommonJS, not ES modules: see "CommonJS chunks" in the header. dist/bundle/package.json
    // (written below) says so to Node, so the files keep their .js names.
    format: 'cjs',
    // What an ES module is without saying it, and the bundled packages' modules already were
    // in the ES chunks: the whole file strict.
    strict: true,
    // import() of a package or a Node module as a lazy require (see the header).
    dynamicImportInCjs: false,
    entryFileNames: '[name].js',
    // One folder for the entry and its chunks, so one relative URL serves every module.
    chunkFileNames: '[name]-[hash].js',
    sourcemap: true,
    codeSplitting: {
      groups: [
        { debugName: STATIC_CHUNK, name: (id) => (entryStatic.has(id) && id !== ENTRY ? STATIC_CHUNK : null) },
      ],
    },
  },
});
if (entryStatic.size < 5) throw new Error(`bundle: only ${entryStatic.size} modules found under the entry's static imports: the graph walk is broken`);

const modules = {};
for (const item of output) {
  if (item.type !== 'chunk') continue;
  // An error class's `name` is its class's (errors.ts: `new.target.name`), which logs and
  // the FLAC worker's errors carry: a class renamed to avoid a clash in its chunk would change it.
  const renamed = /\bclass ([A-Za-z_$][\w$]*\$\d+)\b/.exec(item.code);
  if (renamed) throw new Error(`bundle: class ${renamed[1]} in ${item.fileName} was renamed by the bundler; give it a name of its own`);
  // A default or namespace import of an external package goes through the runtime's
  // __toESM in node mode, which is right for a CommonJS package only: an ES module package
  // would hand over its namespace as its default (see "CommonJS chunks" above).
  for (const [, local] of item.code.matchAll(/\b([\w$]+) = (?:[\w$]+\.)?__toESM\(\1, 1\)/g)) {
    const pkg = new RegExp(`\\b${local.replace(/\$/g, '\\$')} = require\\("([^".][^"]*)"\\)`).exec(item.code)?.[1];
    if (pkg && !pkg.startsWith('node:') && isEsModulePackage(packageOf(pkg))) {
      throw new Error(`bundle: ${item.fileName} takes the default or namespace of ${pkg}, an ES module package, through require(): add it to BUNDLED_PACKAGES, or import its named exports`);
    }
  }
  // Relative to dist/: a bundled package's modules as `../node_modules/<package>/...`.
  modules[item.fileName] = item.moduleIds
    .filter((id) => id.startsWith(`${DIST}/`) || id.startsWith(NODE_MODULES))
    .map((id) => path.relative(DIST, id).split(path.sep).join('/'))
    .sort();
}
writeFileSync(path.join(OUT, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
writeFileSync(path.join(OUT, 'modules.json'), `${JSON.stringify(modules, null, 1)}\n`);
