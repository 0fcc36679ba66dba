import { configOption, examples, jsonOption } from './support/options.js';
export function registerIngestCommand(program) {
    program
        .command('ingest')
        .description('queue existing result files or whole folders (backfill), as the watcher would')
        .argument('<paths...>', 'result files or folders (walked recursively)')
        .addOption(configOption())
        .addOption(jsonOption())
        .option('-n, --dry-run', 'parse and count, queue nothing')
        .option('-v, --verbose', 'log each queued recording (JSON lines on stderr)')
        .option('--force', 'look at files again that were already ingested (after fixing input.labels, say); recordings already queued still add nothing')
        .addHelpText('after', `
Each result file is paired with its audio by base name and parsed with the format
its name and header show; detections below input.minConfidence are left out. Files
already ingested, and recordings already queued, are skipped: running it twice adds
nothing. A progress bar shows on a terminal; the summary (recordings, detections,
skipped files with the reason, errors) goes to stdout. Exit code 1 when a file failed.
${examples('station-agent ingest /mnt/sdcard/analyzer-output', 'station-agent ingest --dry-run ~/recordings/2025-05', 'station-agent ingest --force ~/recordings/2025-05   # after fixing input.labels', 'station-agent ingest a.BirdNET.selection.table.txt b.BirdNET.results.csv --json')}`)
        .action(async (paths, flags) => (await import('./ingest-action.js')).ingestAction(paths, flags));
}
