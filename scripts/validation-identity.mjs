// `npm run build`'s step after tsc (scripts/bundle.mjs imports it first): the identity of
// the config validation's code (every module validation runs, and the versions of the
// packages it imports), written beside the config cache's module as
// dist/config/validation-identity.json. The cache trusts an entry only when it was
// validated by the same code (src/config/cache.ts, schemaIdentity).
//
//   node scripts/validation-identity.mjs [DIST]     (default: this tree's dist/)
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.resolve(import.meta.url === pathToFileURL(process.argv[1] ?? '').href && process.argv[2] ? process.argv[2] : path.join(ROOT, 'dist'));
const cacheModule = path.join(DIST, 'config/cache.js');
const { computeValidationIdentity, VALIDATION_IDENTITY_FILE } = await import(pathToFileURL(cacheModule).href);
const result = await computeValidationIdentity(cacheModule);
writeFileSync(path.join(DIST, 'config', VALIDATION_IDENTITY_FILE), `${JSON.stringify(result, null, 2)}\n`);
