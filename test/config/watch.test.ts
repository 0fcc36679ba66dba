import { mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, it } from 'vitest';
import { ConfigFilesWatcher } from '../../src/config/watch.js';
import { tempDir } from '../helpers/paths.js';
import { until } from '../helpers/until.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function watching(files: string[]): { changes: string[][]; watcher: ConfigFilesWatcher } {
  const changes: string[][] = [];
  const watcher = new ConfigFilesWatcher({ onChange: (f) => changes.push(f), onError: (f, e) => changes.push([`error ${f} ${String(e)}`]), debounceMs: 50 });
  watcher.watch(files);
  cleanups.push(() => watcher.close());
  return { changes, watcher };
}

/** A link swapped as `ln -sfn` does it: a new link renamed over the old one. */
function repoint(link: string, target: string): void {
  symlinkSync(target, `${link}.new`);
  renameSync(`${link}.new`, link);
}

describe('ConfigFilesWatcher: a token file that is a symbolic link', () => {
  it('notices a change of the target in another folder, and of a link further down the chain', async () => {
    const t = tempDir('config-watch-');
    cleanups.push(t.cleanup);
    const etc = path.join(t.dir, 'etc');
    const secrets = path.join(t.dir, 'secrets');
    mkdirSync(etc);
    mkdirSync(secrets);
    writeFileSync(path.join(secrets, 'token-v1'), 'one\n');
    writeFileSync(path.join(secrets, 'token-v2'), 'two\n');
    symlinkSync('token-v1', path.join(secrets, 'current'));
    const tokenFile = path.join(etc, 'token');
    symlinkSync(path.join(secrets, 'current'), tokenFile);
    const { changes } = watching([tokenFile]);

    // The target rewritten in place, in a folder other than the link's.
    writeFileSync(path.join(secrets, 'token-v1'), 'one again\n');
    await until('a change reported for the token file', () => changes.some((c) => c.length === 1 && c[0] === tokenFile), 10_000);

    // The link in the secrets folder re-pointed: the chain leads to token-v2 now.
    changes.length = 0;
    repoint(path.join(secrets, 'current'), 'token-v2');
    await until('a change reported for the token file', () => changes.some((c) => c.length === 1 && c[0] === tokenFile), 10_000);

    // And the new target is followed after the swap.
    changes.length = 0;
    writeFileSync(path.join(secrets, 'token-v2'), 'two again\n');
    await until('a change reported for the token file', () => changes.some((c) => c.length === 1 && c[0] === tokenFile), 10_000);
  });
});
