import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
let loaded;
export function luxon() {
    return (loaded ??= require('luxon'));
}
