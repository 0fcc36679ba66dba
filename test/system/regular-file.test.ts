import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NotRegularFileError, openRegularFile, readRegularFileText } from '../../src/system/regular-file.js';
import { tempDir } from '../helpers/paths.js';

const tmp = tempDir('regular-file-');
const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  tmp.cleanup();
});

async function refusal(file: string): Promise<NotRegularFileError> {
  const err: unknown = await openRegularFile(file).then(
    async (fh) => {
      await fh.close();
      return undefined;
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(NotRegularFileError);
  return err as NotRegularFileError;
}

describe('openRegularFile', () => {
  it('reads a regular file, also through a linked folder', async () => {
    const real = path.join(tmp.dir, 'real');
    mkdirSync(real);
    writeFileSync(path.join(real, 'a.txt'), 'hello');
    symlinkSync(real, path.join(tmp.dir, 'linked'));
    expect(await readRegularFileText(path.join(tmp.dir, 'linked', 'a.txt'))).toBe('hello');
  });

  it('refuses a FIFO at once, without waiting for a writer', async () => {
    const fifo = path.join(tmp.dir, 'X.wav');
    execFileSync('mkfifo', [fifo]);
    const err = await refusal(fifo);
    expect(err).toMatchObject({ code: 'ERR_NOT_REGULAR_FILE', file: fifo, kind: 'a FIFO (named pipe)' });
    expect(err.message).toBe(`${fifo}: not a regular file (a FIFO (named pipe)), skipped`);
  });

  it('refuses a folder, a socket, a device and a symlink, naming each', async () => {
    const dir = path.join(tmp.dir, 'folder.wav');
    mkdirSync(dir);
    expect((await refusal(dir)).kind).toBe('a folder');

    const sock = path.join(tmp.dir, 's.wav');
    const server = createServer();
    servers.push(server);
    await new Promise<void>((r) => server.listen(sock, r));
    expect((await refusal(sock)).kind).toBe('a socket');

    expect((await refusal('/dev/null')).kind).toBe('a character device');

    const target = path.join(tmp.dir, 'target.txt');
    writeFileSync(target, 'secret');
    const link = path.join(tmp.dir, 'link.txt');
    symlinkSync(target, link);
    const err = await refusal(link);
    expect(err.kind).toBe('a symbolic link');
    expect(err.message).toMatch(/does not follow symbolic links/);
  });

  it('rejects a missing file with the system error', async () => {
    await expect(openRegularFile(path.join(tmp.dir, 'missing'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
