import { execFileSync } from 'node:child_process';
import { chmodSync, symlinkSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SECRET_FILE_MAX_BYTES, SecretFileError, readSecretFile } from '../../src/config/secret-files.js';
import { tempDir } from '../helpers/paths.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
function folder(): string {
  const t = tempDir('secret-files-');
  cleanups.push(t.cleanup);
  return t.dir;
}

async function refusal(key: string, file: string): Promise<SecretFileError> {
  const err = await readSecretFile(key, file).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(SecretFileError);
  return err as SecretFileError;
}

describe('readSecretFile', () => {
  it('reads the trimmed secret, and warns naming the key when other users can read it', async () => {
    const dir = folder();
    const file = path.join(dir, 'secret');
    writeFileSync(file, '  s3cret-value\n', { mode: 0o600 });
    expect(await readSecretFile('mqtt.passwordFile', file)).toEqual({ value: 's3cret-value', looseMode: null });
    chmodSync(file, 0o644);
    const loose = await readSecretFile('alerts.webhook.secretFile', file);
    expect(loose.looseMode).toBe(`alerts.webhook.secretFile: other users can read the file (mode 0644); run: chmod 600 ${file}`);
  });

  it('refuses a FIFO without blocking: more readers than libuv has threads, then a normal read still completes', async () => {
    const dir = folder();
    const fifo = path.join(dir, 'token');
    execFileSync('mkfifo', [fifo]);
    // libuv has four file-system threads: eight blocked opens would stop every later read.
    const errors = await Promise.all(Array.from({ length: 8 }, () => refusal('service.tokenFile', fifo)));
    for (const err of errors) {
      expect(err.code).toBe('ERR_SECRET_FILE');
      expect(err.message).toBe('service.tokenFile: the file is a FIFO (named pipe), not a regular file');
    }
    writeFileSync(path.join(dir, 'plain'), 'still readable');
    expect(await readFile(path.join(dir, 'plain'), 'utf8')).toBe('still readable');
  });

  it('follows a symbolic link to a regular file, and refuses one to a FIFO', async () => {
    const dir = folder();
    writeFileSync(path.join(dir, 'real'), 'linked-secret\n', { mode: 0o600 });
    symlinkSync(path.join(dir, 'real'), path.join(dir, 'link'));
    expect((await readSecretFile('service.tokenFile', path.join(dir, 'link'))).value).toBe('linked-secret');
    execFileSync('mkfifo', [path.join(dir, 'pipe')]);
    symlinkSync(path.join(dir, 'pipe'), path.join(dir, 'pipe-link'));
    expect((await refusal('service.tokenFile', path.join(dir, 'pipe-link'))).message).toContain('is a FIFO');
  });

  it('reads at most the bound', async () => {
    const dir = folder();
    const file = path.join(dir, 'big');
    writeFileSync(file, 'x'.repeat(SECRET_FILE_MAX_BYTES + 1), { mode: 0o600 });
    expect((await refusal('mqtt.passwordFile', file)).message).toBe(`mqtt.passwordFile: the file is larger than ${SECRET_FILE_MAX_BYTES} bytes`);
  });

  it('names the key, never the path or the content', async () => {
    const dir = folder();
    const pasted = path.join(dir, 'tok_3f9a1c0be2d44f6b8a7c'); // a token pasted where the path goes
    const missing = await refusal('service.tokenFile', pasted);
    expect(missing.message).not.toContain('tok_3f9a1c0be2d44f6b8a7c');
    expect(missing.message).toMatch(/^service\.tokenFile: the file does not exist/);
    const file = path.join(dir, 'two-words');
    writeFileSync(file, 'tok_3f9a1c0be2d44f6b8a7c second\n', { mode: 0o600 });
    const err = await readSecretFile('service.tokenFile', file, { oneWord: true }).catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(SecretFileError);
    expect((err as Error).message).not.toContain('tok_3f9a1c0be2d44f6b8a7c');
  });
});
