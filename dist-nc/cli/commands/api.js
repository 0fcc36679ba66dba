import { Option } from 'commander';
import { registerGraphqlApiCommands } from './api-graphql.js';
import { apiOption as o } from './api-options.js';
import { adminTokenFileOption, stationIdOption } from './support/client.js';
import { configOption, examples, integerIn, jsonOption } from './support/options.js';
function common(cmd, station) {
    cmd.addOption(configOption()).addOption(jsonOption());
    if (station)
        cmd.addOption(stationIdOption()).addOption(adminTokenFileOption());
    return cmd;
}
const actions = () => import('./api-actions.js');
export function registerApiCommand(program) {
    const api = program
        .command('api')
        .description('read from the service: stats, species, detections, soundscapes, species info')
        .addHelpText('after', `
Station reads use the station token of the config. An administrator reads any
station by its numeric id: --station-id N with the admin token from
STATION_AGENT_ADMIN_TOKEN or --admin-token-file (sent only in the Authorization header).
${examples('station-agent api stats --period week', 'station-agent api species --period month --sort common_name', 'station-agent api detections --limit 20 --classification bat --behavior bat_feeding_buzz', 'station-agent api detections --from 2025-05-01 --all --json > detections.json', 'STATION_AGENT_ADMIN_TOKEN=... station-agent api stats --station-id 42')}`);
    common(api.command('stats').description('detection and species counts of the station'), true)
        .addOption(o.period())
        .addOption(o.since())
        .addOption(o.mode())
        .addOption(o.classification())
        .addHelpText('after', examples('station-agent api stats', 'station-agent api stats --period all --classification avian,bat', 'station-agent api stats --since 2025-05-01T00:00:00+02:00 --json'))
        .action(async (flags) => (await actions()).statsAction(flags));
    common(api.command('species').description("the station's species with detection counts by certainty"), true)
        .addOption(o.period())
        .addOption(o.from())
        .addOption(o.to())
        .addOption(o.since())
        .addOption(o.limit())
        .addOption(o.page())
        .addOption(o.sort())
        .addOption(o.order())
        .addOption(o.speciesId())
        .addOption(o.query())
        .addOption(o.mode())
        .addOption(o.locale())
        .addOption(o.classification())
        .addOption(o.all())
        .addHelpText('after', examples('station-agent api species --period week', 'station-agent api species --period all --sort common_name --order asc --all', 'station-agent api species --query magpie --locale en --json'))
        .action(async (flags) => (await actions()).speciesAction(flags));
    common(api.command('detections').description("the station's detections, newest first"), true)
        .addOption(o.limit())
        .addOption(o.cursor())
        .addOption(o.from())
        .addOption(o.to())
        .addOption(o.speciesId())
        .addOption(o.query())
        .addOption(o.mode())
        .addOption(o.locale())
        .addOption(o.classification())
        .addOption(o.behavior())
        .addOption(o.shortlist())
        .addOption(o.all())
        .addHelpText('after', `
When nothing matches, the service sends a fallback list of unfiltered detections:
it is reported on stderr and included under "unfiltered_detections" with --json,
never shown as matches.
${examples('station-agent api detections --limit 20', 'station-agent api detections --species-id 3000000123 --from 2025-05-01 --to 2025-05-31', 'station-agent api detections --classification bat --behavior bat_approach,bat_pass --shortlist', 'station-agent api detections --all --json | jq ".detections | length"')}`)
        .action(async (flags) => (await actions()).detectionsAction(flags));
    common(api.command('detection').description('one detection by id'), true)
        .argument('<id>', 'detection id', integerIn(1))
        .option('--global', 'use the global endpoint (no token; detections before May 2025 are not served there)')
        .addHelpText('after', examples('station-agent api detection 3000000456', 'station-agent api detection 3000000456 --global --json'))
        .action(async (id, flags) => (await actions()).detectionAction(id, flags));
    common(api.command('soundscapes').description("the station's soundscapes, newest first"), true)
        .addOption(o.limit())
        .addOption(o.cursor())
        .addOption(o.from())
        .addOption(o.to())
        .addOption(o.speciesId())
        .addOption(o.detections())
        .addOption(o.all())
        .addHelpText('after', examples('station-agent api soundscapes --limit 10', 'station-agent api soundscapes --species-id 3000000123 --detections --json', 'station-agent api soundscapes --all'))
        .action(async (flags) => (await actions()).soundscapesAction(flags));
    common(api.command('soundscape').description('one soundscape by id'), true)
        .argument('<id>', 'soundscape id', integerIn(1))
        .addOption(o.detections())
        .addHelpText('after', examples('station-agent api soundscape 3000000789', 'station-agent api soundscape 3000000789 --detections'))
        .action(async (id, flags) => (await actions()).soundscapeAction(id, flags));
    common(api.command('species-info').description('the full record of one species'), false)
        .argument('<id>', 'species id', integerIn(1))
        .addHelpText('after', examples('station-agent api species-info 3000000123', 'station-agent api species-info 3000000123 --json | jq .species.encyclopediaUrl'))
        .action(async (id, flags) => (await actions()).speciesInfoAction(id, flags));
    common(api.command('species-lookup').description('full records of several species by name'), false)
        .argument('<names...>', 'species as "<scientific name>_<common name>"')
        .addOption(new Option('--fields <list>', 'only these species fields, comma-separated (e.g. id,commonName,imageUrl)'))
        .addHelpText('after', examples('station-agent api species-lookup "Pica pica_Eurasian Magpie" "Turdus merula_Eurasian Blackbird"', 'station-agent api species-lookup "Pica pica_Eurasian Magpie" --fields id,imageUrl --json'))
        .action(async (names, flags) => (await actions()).speciesLookupAction(names, flags));
    registerGraphqlApiCommands(api);
}
