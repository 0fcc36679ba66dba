import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * The folder of the installed npm package `name`, found where `require` would look for it
 * (each node_modules from the agent's own folder up), or null when it is not installed. For
 * the addons the agent loads by their file (system/sqlite.ts, audio/flac-native.ts): their
 * folder, not a module of theirs, so neither a package's `main` nor its `exports` map is
 * read (resolving an `exports` map loads Node's ES resolver, compiled from its source once
 * the daemon's V8 flag is set: system/v8-flags.ts).
 */
export function packageDir(name: string): string | null {
  for (const dir of createRequire(import.meta.url).resolve.paths(name) ?? []) {
    const candidate = path.join(dir, name);
    if (existsSync(path.join(candidate, 'package.json'))) return candidate;
  }
  return null;
}
