import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, constants, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { Socket } from 'node:net';
import path from 'node:path';
import { until } from '../helpers/until.js';

/**
 * A LazyFS mount (the FUSE file system Jepsen uses for power cuts): it keeps written data
 * in a cache of its own until the file is fsynced, and on `clear-cache` drops every byte
 * not yet fsynced, which is what a power cut does to the files below it. `lower` is the
 * folder below the mount: what survived. Built by scripts/test-powercut.sh (the LAZYFS
 * variable names the binary). Only file data is cached: creates, renames and unlinks reach
 * the folder at once (a lost folder entry is not simulated).
 */
export interface LazyFs {
  /** The mount point: what the agent sees. */
  mnt: string;
  /** The folder below it: what is durable. */
  lower: string;
  /** Drops every write not fsynced (the caller has stopped the writers). */
  clearCache(): Promise<void>;
  unmount(): Promise<void>;
}

export async function mountLazyFs(binary: string, root: string): Promise<LazyFs> {
  const mnt = path.join(root, 'mnt');
  const lower = path.join(root, 'lower');
  mkdirSync(mnt, { recursive: true });
  mkdirSync(lower, { recursive: true });
  const faults = path.join(root, 'faults.fifo');
  const done = path.join(root, 'done.fifo');
  for (const fifo of [faults, done]) if (!existsSync(fifo)) spawnSync('mkfifo', [fifo], { stdio: 'inherit' });
  const config = path.join(root, 'lazyfs.toml');
  writeFileSync(
    config,
    [
      '[faults]',
      `fifo_path="${faults}"`,
      `fifo_path_completed="${done}"`,
      '[cache]',
      'apply_eviction=false',
      '[cache.simple]',
      'custom_size="512mb"',
      'blocks_per_page=1',
      '[filesystem]',
      'log_all_operations=false',
      `logfile="${path.join(root, 'lazyfs.log')}"`,
      '',
    ].join('\n'),
  );
  // A reader on the completion FIFO for the mount's whole life (LazyFS blocks writing to it
  // otherwise); read-write, so opening it never waits for LazyFS and it never reaches EOF.
  const doneFd = openSync(done, constants.O_RDWR | constants.O_NONBLOCK);
  const completions = new Socket({ fd: doneFd, readable: true, writable: false });
  let text = '';
  const waiters: (() => void)[] = [];
  completions.setEncoding('utf8');
  completions.on('data', (chunk: string) => {
    text += chunk;
    for (const w of waiters.splice(0)) w();
  });
  const child: ChildProcess = spawn(binary, [mnt, '--config-path', config, '-o', 'modules=subdir', '-o', `subdir=${lower}`, '-f'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const mounted = () => readFileSync('/proc/self/mounts', 'utf8').split('\n').some((l) => l.split(' ')[1] === mnt);
  await until('the LazyFS mount', () => mounted() || child.exitCode !== null, 30_000);
  if (!mounted()) throw new Error(`LazyFS did not mount ${mnt}: ${stderr}`);

  let cleared = 0;
  return {
    mnt,
    lower,
    async clearCache() {
      const want = ++cleared;
      await writeFile(faults, 'lazyfs::clear-cache\n');
      const count = () => text.split('finished::clear-cache').length - 1;
      await until('LazyFS to clear its cache', () => count() >= want, 30_000, () => `completion FIFO: ${JSON.stringify(text)}; ${stderr}`);
    },
    async unmount() {
      spawnSync('fusermount3', ['-u', mnt]);
      if (mounted()) spawnSync('umount', ['-l', mnt]);
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((resolve) => child.once('exit', resolve));
      }
      completions.destroy();
      try {
        closeSync(doneFd);
      } catch {
        // closed with the socket
      }
    },
  };
}
