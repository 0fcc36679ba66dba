import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { ingestPaths } from '../../ingest/backfill.js';
import { createLogger } from '../../log/index.js';
import { openQueue, type Queue } from '../../queue/index.js';
import { queueDbPath, queueExists } from '../../status/queue-file.js';
import { createOutput } from '../format/output.js';
import { createProgress } from '../format/progress.js';
import { loadCliConfig, refuseRootInForeignDataDir } from './support/context.js';

export interface IngestFlags {
  config?: string;
  json?: boolean;
  dryRun?: boolean;
  verbose?: boolean;
  force?: boolean;
}

/** The action of `station-agent ingest`, loaded only when it runs. */
export async function ingestAction(paths: string[], flags: IngestFlags): Promise<void> {
  // A backfill of large tables runs for minutes: zod and the schema would take some 20 MB
  // of its memory all that time, so a changed config is validated in a child process.
  const loaded = await loadCliConfig(flags, { validateApart: true });
  const { config } = loaded;
  const out = createOutput();
  const progress = await createProgress();
  const log = createLogger({
    level: flags.verbose ? 'info' : 'warn',
    destination: new Writable({
      write(chunk: Buffer, _encoding, done) {
        progress.log(chunk.toString());
        done();
      },
    }),
  });

  // A dry run never creates the queue: without one, it checks against an empty queue of its own.
  let scratch: string | null = null;
  let queue: Queue;
  if (flags.dryRun && !queueExists(config.dataDir)) {
    scratch = mkdtempSync(path.join(tmpdir(), 'station-agent-dry-run-'));
    queue = openQueue(queueDbPath(scratch));
  } else {
    refuseRootInForeignDataDir(config.dataDir);
    queue = openQueue(queueDbPath(config.dataDir));
  }

  try {
    const result = await ingestPaths({
      config,
      queue,
      paths,
      dryRun: flags.dryRun === true,
      force: flags.force === true,
      onProgress: (done, total, file) => progress.update(done, total, file),
      log,
    });
    progress.stop();
    if (flags.json) {
      out.json({ dryRun: flags.dryRun === true, ...result });
    } else {
      const s = out.style;
      const verb = flags.dryRun ? 'would queue' : 'queued';
      out.line(`${verb} ${result.recordings} recordings, ${result.detections} detections`);
      out.line(`skipped ${result.skipped.length} files${result.skipped.length ? ':' : ''}`);
      listSome(result.skipped.map((k) => `${k.file}: ${k.reason}`), flags.verbose === true, out.line);
      if (result.errors.length) {
        out.line(`${s.red('failed')} ${result.errors.length} files:`);
        listSome(result.errors.map((e) => `${e.file}: ${e.message}`), true, out.line);
      }
      if (flags.dryRun) out.note('dry run: nothing was queued');
    }
    if (result.errors.length > 0) process.exitCode = 1;
  } finally {
    progress.stop();
    queue.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}

/** Up to 20 lines unless `all`; the rest are counted (the whole list is in --json). */
function listSome(lines: string[], all: boolean, print: (line: string) => void): void {
  const shown = all ? lines : lines.slice(0, 20);
  for (const line of shown) print(`  ${line}`);
  if (shown.length < lines.length) print(`  ... and ${lines.length - shown.length} more (--verbose or --json lists them all)`);
}
