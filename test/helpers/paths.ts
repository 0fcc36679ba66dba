import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Real analyzer output, read in place from `../shared/fixtures/real` (CC BY-NC-SA files
 * stay there and are never copied into this repository).
 */
export const REAL_FIXTURES = path.resolve(REPO_ROOT, '../shared/fixtures/real');

export function realFixture(...parts: string[]): string {
  return path.join(REAL_FIXTURES, ...parts);
}

/** The project's own fixtures. */
export function fixture(...parts: string[]): string {
  return path.join(REPO_ROOT, 'test/fixtures', ...parts);
}

/** A fresh temporary folder and its cleanup. */
export function tempDir(prefix = 'station-agent-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
