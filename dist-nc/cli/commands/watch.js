import { InvalidArgumentError, Option } from 'commander';
import { CLASSIFICATIONS, SOUNDSCAPE_MODES, STATION_TYPES } from '../../wire/types.js';
import { idList } from './graphql-support.js';
import { configOption, examples, integerIn, listOf } from './support/options.js';
function numberOption(flag, what) {
    return new Option(flag, what).argParser((value) => {
        const n = Number(value);
        if (value.trim() === '' || !Number.isFinite(n))
            throw new InvalidArgumentError(`expected a number, got "${value}".`);
        return n;
    });
}
function words(value, previous) {
    const items = value.split(',').map((s) => s.trim()).filter(Boolean);
    if (items.length === 0)
        throw new InvalidArgumentError('expected one or more values, comma-separated.');
    return [...(previous ?? []), ...items];
}
function hourRange(value) {
    const m = /^(\d{1,2})-(\d{1,2})$/.exec(value.trim());
    const [from, to] = m ? [Number(m[1]), Number(m[2])] : [NaN, NaN];
    if (!m || from > 23 || to > 23) {
        throw new InvalidArgumentError(`expected hours of the day as FROM-TO (0-23, both included; 22-5 wraps past midnight), got "${value}".`);
    }
    return { from, to };
}
export function registerWatchCommand(program) {
    program
        .command('watch')
        .description('print detections live as the service receives them (this station by default)')
        .addOption(configOption())
        .addOption(new Option('--json', 'one JSON object per detection and line (NDJSON), for scripts'))
        .addOption(new Option('--station-id <ids>', 'these stations (numeric or GraphQL ids, comma-separated) instead of this one').argParser(idList))
        .addOption(new Option('--all-stations', 'every station'))
        .addOption(new Option('--species <list>', 'only these species: scientific names or ids, comma-separated').argParser(words))
        .addOption(new Option('--classification <list>', `one or more of ${CLASSIFICATIONS.join(', ')}`).argParser(listOf(CLASSIFICATIONS)))
        .addOption(new Option('--station-type <list>', `one or more of ${STATION_TYPES.join(', ')}`).argParser(listOf(STATION_TYPES)))
        .addOption(new Option('--mode <list>', `recording modes: ${SOUNDSCAPE_MODES.join(', ')}`).argParser(listOf(SOUNDSCAPE_MODES)))
        .addOption(new Option('--continent <list>', 'continents, e.g. Europe,"North America"').argParser(words))
        .addOption(new Option('--country <list>', 'countries, comma-separated').argParser(words))
        .addOption(numberOption('--min-score <n>', 'score at least n (0-10)'))
        .addOption(numberOption('--max-score <n>', 'score at most n'))
        .addOption(numberOption('--min-confidence <n>', 'analyzer confidence at least n (0-1)'))
        .addOption(numberOption('--max-confidence <n>', 'confidence at most n'))
        .addOption(numberOption('--min-probability <n>', 'occurrence probability at least n (0-1)'))
        .addOption(numberOption('--max-probability <n>', 'probability at most n'))
        .addOption(new Option('--hours <from-to>', "hours of the day in the station's time zone, e.g. 4-9 or 22-5").argParser(hourRange))
        .addOption(new Option('--override-station-filters', "include detections below each station's own minimums"))
        .addOption(new Option('--count <n>', 'stop after n detections').argParser(integerIn(1)))
        .addHelpText('after', `
The service's GraphQL endpoint is service.graphqlUrl (default {baseUrl}/graphql); the
subscription runs over WebSocket at the same URL. "This station" is the one of the
station record stored at the last config sync, else the service is asked with the token.
When the connection drops, watch says so on stderr and reconnects with growing pauses
(1 s up to 30 s). A connect, and the answer to each keep-alive ping (every 10 s), get
service.timeoutMs; a service that does not answer in time counts as dropped. Detections made while it was away are not replayed (use
\`station-agent api detections\` for those). Ctrl-C stops it.
${examples('station-agent watch', 'station-agent watch --min-score 7 --classification avian,bat', 'station-agent watch --all-stations --species "Turdus merula" --json | jq .species.commonName', 'station-agent watch --station-id 3000000001,3000000002 --hours 22-5 --count 10')}`)
        .action(async (flags) => (await import('./watch-session.js')).watchAction(flags));
}
