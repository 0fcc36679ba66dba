import type { Command } from 'commander';
import { configOption, examples } from './support/options.js';
import { optimizingCompilerOff } from '../../system/v8-flags.js';

interface RunFlags {
  config?: string;
  verbose?: boolean;
}

/** How long shutdown may take before the process exits anyway (systemd's stop timeout is longer). */
const STOP_DEADLINE_MS = 8_000;

/**
 * `station-agent run`: the daemon. Starts the watcher, the encoder, the uploader
 * and config sync; on SIGTERM/SIGINT finishes or safely abandons in-flight
 * requests (they become `unknown` and are reconciled on the next start), closes the
 * database and exits 0.
 */
export function registerRunCommand(program: Command): void {
  program
    .command('run')
    .description('run the agent: watch the analyzer output, queue, upload, keep the station config in sync')
    .addOption(configOption())
    .option('-v, --verbose', 'log at debug level (overrides log.level)')
    .addHelpText(
      'after',
      `
Logs are JSON lines on standard output (for the journal), the token redacted.
Stop with SIGTERM or Ctrl-C: in-flight uploads are abandoned safely and
reconciled with the service on the next start, so nothing is lost or duplicated.
A changed config file or token file is read again by itself (or on SIGHUP,
systemctl reload): a new token is used at once, station settings are pushed;
other keys need a restart. One run per dataDir: a second one exits 1.
${examples(
  'station-agent run --config /etc/station-agent/config.json',
  'STATION_AGENT_TOKEN=... station-agent run --config ./config.json --verbose',
)}`,
    )
    .action(async (flags: RunFlags) => {
      // Signals are taken before start-up: a SIGTERM while the daemon is still starting
      // (systemd stopping a unit that just started) must still end in a clean stop.
      let signalled: NodeJS.Signals | null = null;
      let onStop: (() => void) | null = null;
      const onSignal = (signal: NodeJS.Signals) => {
        if (signalled) return;
        signalled = signal;
        onStop?.();
      };
      process.on('SIGTERM', onSignal);
      process.on('SIGINT', onSignal);
      // SIGHUP (systemd's ExecReload): read the config and token file again. Without a
      // handler, SIGHUP would end the process.
      let onReload: (() => void) | null = null;
      const onHangup = () => onReload?.();
      process.on('SIGHUP', onHangup);
      try {
        // Before the daemon's modules load (system/v8-flags.ts says why).
        optimizingCompilerOff();
        const { startDaemon } = await import('../../daemon/index.js');
        const daemon = await startDaemon({
          path: flags.config,
          overrides: flags.verbose ? { log: { level: 'debug' } } : undefined,
        });
        onReload = () => void daemon.reload();
        await new Promise<void>((resolve) => {
          onStop = () => {
            daemon.log.info({ signal: signalled }, 'stopping');
            const deadline = setTimeout(() => {
              daemon.log.error('shutdown took too long: exiting');
              process.exit(1);
            }, STOP_DEADLINE_MS);
            deadline.unref();
            void daemon.stop().then(resolve, (err: unknown) => {
              daemon.log.error(`shutdown failed: ${String(err)}`);
              resolve();
            });
          };
          if (signalled) onStop();
        });
      } finally {
        process.off('SIGTERM', onSignal);
        process.off('SIGINT', onSignal);
        process.off('SIGHUP', onHangup);
      }
    });
}
