import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NotRegularFileError, openRegularFile, openRegularFileStat, withRegularFile, type ReadableFile } from '../../src/system/regular-file.js';
import { tempDir } from '../helpers/paths.js';

const tmp = tempDir('regular-file-');
const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  tmp.cleanup();
});

type Opener = (file: string) => Promise<ReadableFile>;
/** The two ways in: a FileHandle (held, copied from), and ingest's reader of synchronous calls. */
const OPENERS: [string, Opener][] = [
  ['openRegularFile', (file) => openRegularFile(file)],
  ['openRegularFileStat', async (file) => (await openRegularFileStat(file)).handle],
];

async function refusal(file: string, open: Opener = openRegularFile): Promise<NotRegularFileError> {
  const err: unknown = await open(file).then(
    async (fh) => {
      await fh.close();
      return undefined;
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(NotRegularFileError);
  return err as NotRegularFileError;
}

describe.each(OPENERS)('%s', (name, open) => {
  it('reads a regular file, also through a linked folder', async () => {
    const real = path.join(tmp.dir, `real-${name}`);
    mkdirSync(real);
    writeFileSync(path.join(real, 'a.txt'), 'hello');
    symlinkSync(real, path.join(tmp.dir, `linked-${name}`));
    const file = path.join(tmp.dir, `linked-${name}`, 'a.txt');
    expect(await withRegularFile(file, (fh) => fh.readFile('utf8'))).toBe('hello');
    const fh = await open(file);
    const buf = Buffer.alloc(10);
    const { bytesRead } = await fh.read(buf, 0, 10, 1);
    expect(buf.subarray(0, bytesRead).toString()).toBe('ello');
    expect((await fh.stat()).size).toBe(5);
    await fh.close();
  });

  it('refuses a FIFO at once, without waiting for a writer', async () => {
    const fifo = path.join(tmp.dir, `X-${name}.wav`);
    execFileSync('mkfifo', [fifo]);
    const err = await refusal(fifo, open);
    expect(err).toMatchObject({ code: 'ERR_NOT_REGULAR_FILE', file: fifo, kind: 'a FIFO (named pipe)' });
    expect(err.message).toBe(`${fifo}: not a regular file (a FIFO (named pipe)), skipped`);
  });

  it('refuses a folder, a socket, a device and a symlink, naming each', async () => {
    const dir = path.join(tmp.dir, `folder-${name}.wav`);
    mkdirSync(dir);
    expect((await refusal(dir, open)).kind).toBe('a folder');

    const sock = path.join(tmp.dir, `s-${name}.wav`);
    const server = createServer();
    servers.push(server);
    await new Promise<void>((r) => server.listen(sock, r));
    expect((await refusal(sock, open)).kind).toBe('a socket');

    expect((await refusal('/dev/null', open)).kind).toBe('a character device');

    const target = path.join(tmp.dir, `target-${name}.txt`);
    writeFileSync(target, 'secret');
    const link = path.join(tmp.dir, `link-${name}.txt`);
    symlinkSync(target, link);
    const err = await refusal(link, open);
    expect(err.kind).toBe('a symbolic link');
    expect(err.message).toMatch(/does not follow symbolic links/);
  });

  it('rejects a missing file with the system error', async () => {
    await expect(open(path.join(tmp.dir, 'missing'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('reads nothing once closed, and a second close does nothing', async () => {
    const file = path.join(tmp.dir, `closed-${name}.txt`);
    writeFileSync(file, 'data');
    const fh = await open(file);
    await fh.close();
    await expect(fh.read(Buffer.alloc(4), 0, 4, 0)).rejects.toMatchObject({ code: 'EBADF' });
    await expect(fh.close()).resolves.toBeUndefined();
  });
});
