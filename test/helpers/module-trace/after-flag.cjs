// Preloaded with `node --require <this file>` (see test/cli/lazy-loading.test.ts): notes when
// the process sets `--no-opt` (src/system/v8-flags.ts), and at its exit writes to
// $AFTER_FLAG_FILE, as JSON, the Node modules it loaded after that ([] when none; null when
// the flag was never set).
const { writeFileSync } = require('node:fs');
const v8 = require('node:v8');

const setFlags = v8.setFlagsFromString;
let at = null;
v8.setFlagsFromString = function (flags) {
  if (flags === '--no-opt' && at === null) at = process.moduleLoadList.length;
  return setFlags.call(this, flags);
};
process.on('exit', () => {
  const after = at === null ? null : process.moduleLoadList.slice(at).filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice('NativeModule '.length));
  writeFileSync(process.env.AFTER_FLAG_FILE, JSON.stringify(after));
});
