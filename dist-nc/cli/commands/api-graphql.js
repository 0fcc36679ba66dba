import { InvalidArgumentError, Option } from 'commander';
import { STATION_TYPES } from '../../wire/types.js';
import { GRAPHQL_PERIODS, idList } from './graphql-support.js';
import { configOption, examples, integerIn, jsonOption, listOf } from './support/options.js';
function jsonObject(value) {
    let parsed;
    try {
        parsed = JSON.parse(value);
    }
    catch {
        throw new InvalidArgumentError(`expected a JSON object such as '{"first": 10}', got "${value}".`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        throw new InvalidArgumentError('expected a JSON object.');
    return parsed;
}
function day(value) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(value.trim()) || Number.isNaN(Date.parse(value))) {
        throw new InvalidArgumentError(`expected a date YYYY-MM-DD (a whole UTC day), got "${value}".`);
    }
    return value.trim();
}
function scoped(cmd) {
    return cmd
        .addOption(configOption())
        .addOption(jsonOption())
        .addOption(new Option('--period <period>', `${GRAPHQL_PERIODS.join(', ')}: the last one of these, or all (default: day, the last 24 hours)`).choices(GRAPHQL_PERIODS))
        .addOption(new Option('--from <date>', 'first UTC day (YYYY-MM-DD, inclusive); overrides --period').argParser(day))
        .addOption(new Option('--to <date>', 'last UTC day (YYYY-MM-DD, inclusive); overrides --period').argParser(day))
        .addOption(new Option('--station-id <ids>', 'these stations (numeric or GraphQL ids, comma-separated) instead of this one').argParser(idList))
        .addOption(new Option('--all-stations', 'every station'))
        .addOption(new Option('--station-type <list>', `only stations of these types: ${STATION_TYPES.join(', ')}`).argParser(listOf(STATION_TYPES)))
        .addOption(new Option('--species-id <id>', 'only this species (numeric or GraphQL id)'));
}
const actions = () => import('./api-graphql-actions.js');
export function registerGraphqlApiCommands(api) {
    api
        .command('graphql')
        .description('send one GraphQL query to the service and print its JSON answer')
        .addOption(configOption())
        .requiredOption('--query <query>', 'the query text, @file to read it from a file, or - for stdin')
        .addOption(new Option('--variables <json>', 'variables as a JSON object').argParser(jsonObject))
        .addOption(new Option('--operation-name <name>', 'which operation of the document to run'))
        .addHelpText('after', `
Prints the whole answer, {"data": ..., "errors": [...]}, as JSON; exits 1 when it has
errors. Subscriptions are not sent this way: see station-agent watch.
${examples('station-agent api graphql --query \'{ stations { totalCount nodes { id name } } }\'', 'station-agent api graphql --query @top.graphql --variables \'{"limit": 5}\'', 'station-agent api graphql --query \'{ counts { detections species } }\' | jq .data.counts')}`)
        .action(async (flags) => (await actions()).graphqlAction(flags));
    scoped(api.command('top-species').description("species with the most detections (this station's by default)"))
        .addOption(new Option('--limit <n>', 'how many, 1 to 100 (default 10)').argParser(integerIn(1, 100)))
        .addOption(new Option('--offset <n>', 'skip this many first').argParser(integerIn(0, 2_147_483_647)))
        .addHelpText('after', `
Counts only detections meeting each station's own minimum confidence, probability and
score (the service's public view).
${examples('station-agent api top-species', 'station-agent api top-species --period week --limit 20', 'station-agent api top-species --all-stations --period month --json')}`)
        .action(async (flags) => (await actions()).topSpeciesAction(flags));
    scoped(api.command('counts').description("detections, species and stations in a period (this station's by default)"))
        .addHelpText('after', `
Counts only detections meeting each station's own minimums; "analyzer" counts the
sightings of the analyzer's phone app in the period, whatever the station filters.
${examples('station-agent api counts', 'station-agent api counts --period year --json', 'station-agent api counts --all-stations --station-type puc,analyzerpi')}`)
        .action(async (flags) => (await actions()).countsAction(flags));
}
