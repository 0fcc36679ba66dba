import Database from 'better-sqlite3';
import { packageAddonFile } from './package-dir.js';

/**
 * The one way the agent opens a SQLite file (the queue, the daemon's lock file): better-sqlite3
 * told where its addon is. better-sqlite3 13 is a Node-API addon and ships it prebuilt for
 * glibc Linux on x64 and arm64 (`prebuilds/linux-<arch>.node`, the same file for every Node
 * from 22): nothing is compiled at install. A copy compiled on purpose (`node-gyp rebuild` in
 * the package, for another architecture such as 32-bit ARM) is in `build/Release/` and wins,
 * as in the package's own lookup.
 *
 * Why not the package's own lookup: in the bundle (scripts/bundle.mjs) better-sqlite3's
 * modules are ours, and from a chunk of dist/bundle/ it would look for its addon in the
 * agent's own folder.
 */
export function openSqlite(file: string, options: Omit<Database.Options, 'nativeBinding'> = {}): Database.Database {
  return new Database(file, { ...options, nativeBinding: betterSqliteAddon() });
}

let addonFile: string | undefined;

function betterSqliteAddon(): string {
  addonFile ??= packageAddonFile('better-sqlite3', 'better_sqlite3.node', `prebuilds/${process.platform}-${process.arch}.node`);
  return addonFile;
}
