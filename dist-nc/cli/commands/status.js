import { configOption, examples, integerIn, jsonOption } from './support/options.js';
export function registerStatusCommand(program) {
    program
        .command('status')
        .description('show the queue, the uploader, the service connection, disk, clock and config sync')
        .addOption(configOption())
        .addOption(jsonOption())
        .option('--offline', 'do not contact the service (no reachability or token check)')
        .option('--timeout <ms>', 'time limit of the service probe in milliseconds', integerIn(100, 60_000), 3_000)
        .addHelpText('after', `
Counts are per state: pending (waiting, or being encoded), sending (a request in flight), unknown (sent, outcome
being reconciled), uploaded, failed (needs an operator: queue show / queue retry),
dropped. Soundscapes are the audio recordings, detections the species found in them.
Uploader, circuit, watcher and clock come from the running daemon; without one the
queue and the last stored station record are still shown.
${examples('station-agent status', 'station-agent status --json | jq .queue.detections.pending', 'station-agent status --offline --config ./config.json')}`)
        .action(async (flags) => {
        const [{ loadCliConfig }, { collectStatus }, { createOutput }] = await Promise.all([
            import('./support/context.js'),
            import('../../status/report.js'),
            import('../format/output.js'),
        ]);
        const loaded = await loadCliConfig(flags, { unreadableTokenFile: 'report' });
        const report = await collectStatus({
            config: loaded.config,
            configFile: loaded.path,
            tokenProblem: loaded.tokenProblem,
            offline: flags.offline === true,
            probeTimeoutMs: flags.timeout,
        });
        const out = createOutput();
        if (flags.json) {
            out.json(report);
            return;
        }
        const { renderStatus } = await import('../format/status-view.js');
        out.lines(renderStatus(report, out.style));
    });
}
