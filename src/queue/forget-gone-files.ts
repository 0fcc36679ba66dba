import { lstat, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Queue } from './db.js';
import { forgetIngestedFiles, ingestedFilesBefore } from './ingested-files.js';

/** A folder's identity on this machine: another folder mounted or made again at its path has another. */
export interface FolderIdentity {
  dev: bigint;
  ino: bigint;
}

/** Rows looked at per page of the walk (one short transaction for what goes). */
const PAGE = 500;

/**
 * Forgets the `ingested_files` rows that protect nothing any more: recorded before `before`
 * (`queue.retainDays` ago, so the queue's own rows of those recordings have gone or are
 * going) of files that are gone from `inputDir`. A row of a file still there stays as long
 * as the file does: without it the watcher would read the file again, and once its
 * recordings are retired from the queue nothing would keep them from being posted twice.
 *
 * Absence is trusted only where it can be: the files below `inputDir` while `inputDir` is
 * the very folder the daemon holds (`held`, its lock's identity), checked before each
 * page's rows go. An input folder unmounted, missing or replaced makes its files look gone:
 * nothing is forgotten then. Files read elsewhere (`station-agent ingest` of a card) keep
 * their rows: a card put back is the same absence. Only `ENOENT`/`ENOTDIR` say gone (an
 * unreadable file is not gone). The walk is by path, a page per transaction with the event
 * loop free in between (docs/ARCHITECTURE.md, "How long the queue keeps what").
 */
export async function forgetGoneFiles(
  q: Queue,
  options: { inputDir: string; held: FolderIdentity; before: number },
): Promise<number> {
  const root = path.resolve(options.inputDir);
  const trusted = async (): Promise<boolean> => {
    try {
      const st = await stat(root, { bigint: true });
      return st.isDirectory() && st.dev === options.held.dev && st.ino === options.held.ino;
    } catch {
      return false;
    }
  };
  let forgotten = 0;
  for (let after = ''; ; ) {
    if (!(await trusted())) return forgotten;
    const page = ingestedFilesBefore(q, { before: options.before, after, limit: PAGE });
    const gone: string[] = [];
    for (const file of page.old) if (isBelow(root, file) && (await isGone(file))) gone.push(file);
    // The folder may have been unmounted while its files were looked at.
    if (gone.length > 0 && (await trusted())) forgotten += forgetIngestedFiles(q, gone, options.before);
    if (page.next === null) return forgotten;
    after = page.next;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function isBelow(root: string, file: string): boolean {
  const rel = path.relative(root, file);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

async function isGone(file: string): Promise<boolean> {
  try {
    await lstat(file);
    return false;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR';
  }
}
