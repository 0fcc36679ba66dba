import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * The addon `file` of the installed npm package `name`, where its install builds it
 * (`build/Release/`, node-gyp's and cmake-js's folder), else the `prebuilt` file the package
 * ships beside it (a path in the package, when given and present), for the addons
 * the agent loads by their file (system/sqlite.ts, audio/flac-native.ts). The package is
 * found where `require` would look for it (each node_modules from the agent's own folder up),
 * by its folder, not a module of its: neither its `main` nor its `exports` map is read
 * (resolving an `exports` map loads Node's ES resolver, compiled from its source once the
 * daemon's V8 flag is set: system/v8-flags.ts). Throws, naming the package, when it is not
 * installed.
 */
export function packageAddonFile(name: string, file: string, prebuilt?: string): string {
  for (const dir of createRequire(import.meta.url).resolve.paths(name) ?? []) {
    const candidate = path.join(dir, name);
    if (!existsSync(path.join(candidate, 'package.json'))) continue;
    const built = path.join(candidate, 'build', 'Release', file);
    if (prebuilt === undefined || existsSync(built)) return built;
    const shipped = path.join(candidate, prebuilt);
    return existsSync(shipped) ? shipped : built;
  }
  throw new Error(`${name} is not installed`);
}
