import Database from 'better-sqlite3';
import { packageAddonFile } from './package-dir.js';

/**
 * The one way the agent opens a SQLite file (the queue, the daemon's lock file): better-sqlite3
 * told where its addon is, the file its install builds (`build/Release/better_sqlite3.node`,
 * node-gyp's and prebuild-install's folder).
 *
 * Why not the package's own lookup: it goes through the `bindings` package, which captures a
 * stack trace to find its caller's package and then tries a dozen paths by `require`, each miss
 * a thrown error: some 4 ms of CPU per process here, at every daemon start and every `status`.
 * And in the bundle (scripts/bundle.mjs) better-sqlite3's modules are ours: from a chunk of
 * dist/bundle/, `bindings` would look for the addon in the agent's own folder.
 */
export function openSqlite(file: string, options: Omit<Database.Options, 'nativeBinding'> = {}): Database.Database {
  return new Database(file, { ...options, nativeBinding: betterSqliteAddon() });
}

let addonFile: string | undefined;

function betterSqliteAddon(): string {
  addonFile ??= packageAddonFile('better-sqlite3', 'better_sqlite3.node');
  return addonFile;
}
