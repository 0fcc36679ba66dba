// Preloaded (`node -r`) by the bench's restart forms (bench/src/cpu.ts): the daemon as it
// would run without its V8 flag (src/system/v8-flags.ts), TurboFan left on; the rest as it
// ships. `--no-opt` alone is dropped; the Node modules the daemon loads first still load.
const v8 = require('node:v8');
const setFlagsFromString = v8.setFlagsFromString;
v8.setFlagsFromString = (flags) => (flags === '--no-opt' ? undefined : setFlagsFromString(flags));
