import type { Command } from 'commander';
import { configOption, examples, integerIn, jsonOption } from './support/options.js';

interface DoctorFlags {
  config?: string;
  json?: boolean;
  offline?: boolean;
  timeout: number;
  testAlert?: boolean;
}

/** `station-agent doctor`: checks the station's setup end to end, each with a hint. */
export function registerDoctorCommand(program: Command): void {
  program
    .command('doctor')
    .description('check the setup: config, service and token, clock, input folder, labels, spool, disk, FLAC encoder, inotify')
    .addOption(configOption())
    .addOption(jsonOption())
    .option('--offline', 'skip the service checks')
    .option('--test-alert', 'send a test notification to alerts.webhook.url (the check fails when none is set or the receiver refuses it)')
    .option('--timeout <ms>', 'time limit of the service probe in milliseconds', integerIn(100, 120_000), 5_000)
    .addHelpText(
      'after',
      `
Every check prints PASS, WARN, FAIL or SKIP with what it found, and a hint when it
did not pass. Exit code 1 when a check failed, 3 when the config itself is invalid
(then nothing else is checked). Run it as the agent's user (User= of its systemd
unit) to check that user's permissions, e.g.:
  sudo -u pi station-agent doctor
${examples('station-agent doctor', 'station-agent doctor --offline --config ./config.json', 'station-agent doctor --test-alert', 'station-agent doctor --json | jq \'.checks[] | select(.status == "fail")\'')}`,
    )
    .action(async (flags: DoctorFlags) => {
      const [{ runDoctor }, { createOutput }, { renderDoctor }, { EXIT }] = await Promise.all([
        import('../../status/doctor/run.js'),
        import('../format/output.js'),
        import('../format/doctor-view.js'),
        import('../../errors.js'),
      ]);
      const report = await runDoctor({ configPath: flags.config, offline: flags.offline === true, timeoutMs: flags.timeout, testAlert: flags.testAlert === true });
      const out = createOutput();
      if (flags.json) out.json(report);
      else out.lines(renderDoctor(report.checks, out.style));
      if (report.configInvalid) process.exitCode = EXIT.CONFIG;
      else if (!report.ok) process.exitCode = EXIT.FAILURE;
    });
}
