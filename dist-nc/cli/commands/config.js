import { configOption, examples, jsonOption } from './support/options.js';
export function registerConfigCommand(program) {
    const config = program
        .command('config')
        .description('check, show and push the configuration')
        .addHelpText('after', `
The effective configuration is the file (--config, else $STATION_AGENT_CONFIG, else
/etc/station-agent/config.json) overridden by STATION_AGENT_* environment variables.
${examples('station-agent config validate', 'station-agent config show --json', 'station-agent config push')}`);
    config
        .command('validate')
        .description('load the configuration and check every key; exit 3 listing the problems')
        .addOption(configOption())
        .addOption(jsonOption())
        .addHelpText('after', `
Prints one line per problem as \`<key> <message>\` (e.g. \`upload.concurrency must be
between 1 and 16 (got 20)\`) and exits with 3; warnings (loose file modes, plain
http) go to stderr and do not fail.
${examples('station-agent config validate --config ./config.json', 'STATION_AGENT_UPLOAD_CONCURRENCY=8 station-agent config validate', 'station-agent config validate --json | jq .problems')}`)
        .action(async (flags) => (await import('./config-actions.js')).validateAction(flags));
    config
        .command('show')
        .description('print the effective configuration (token redacted) and the last station record')
        .addOption(configOption())
        .addOption(jsonOption())
        .option('--live', 'ask the service for the station record now (an empty config update, which changes nothing)')
        .addHelpText('after', `
The station record is the one stored at the last config sync (in the queue), or
the service's current one with --live. The token is always shown as <redacted>.
${examples('station-agent config show', 'station-agent config show --live', 'station-agent config show --json | jq .config.upload')}`)
        .action(async (flags) => (await import('./config-actions.js')).showAction(flags));
    config
        .command('push')
        .description('check station.settings locally, send them to the service and print the station record')
        .addOption(configOption())
        .addOption(jsonOption())
        .addHelpText('after', `
Only the keys present in station.settings are sent; the others keep the service's
values. Out-of-range values are refused before anything is sent (exit 3); a
rejection by the service exits with 4. The returned record is stored in the queue
(when there is one) so \`status\` shows it.
${examples('station-agent config push', 'STATION_AGENT_STATION_SETTINGS_MIN_CONFIDENCE=0.8 station-agent config push --json')}`)
        .action(async (flags) => (await import('./config-actions.js')).pushAction(flags));
}
