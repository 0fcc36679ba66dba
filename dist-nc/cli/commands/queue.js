import { Option } from 'commander';
import { CLI_KINDS } from '../format/queue-view.js';
import { configOption, examples, integerIn, jsonOption } from './support/options.js';
const STATES = ['pending', 'sending', 'unknown', 'uploaded', 'failed', 'dropped'];
function kindOption(what) {
    return new Option('--kind <kind>', what).choices(CLI_KINDS);
}
export function registerQueueCommand(program) {
    const queue = program
        .command('queue')
        .description('list, show, retry, release and drop queued soundscapes and detections')
        .addHelpText('after', `
Item ids: r<n> is soundscape (recording) n, d<n> is detection n, as \`queue list\`
prints them. States: pending (waiting; a WAV soundscape is encoded while it waits),
sending (a request with it may be at the service), unknown (sent, outcome being
reconciled), uploaded, failed (terminal until retried), dropped.
${examples('station-agent queue list --state failed', 'station-agent queue show d345', 'station-agent queue retry --failed', 'station-agent queue drop r12 d345 --yes')}`);
    queue
        .command('list')
        .description('list queued items in id order, soundscapes first')
        .addOption(configOption())
        .addOption(jsonOption())
        .addOption(new Option('--state <state>', 'only items in this state').choices(STATES))
        .addOption(kindOption('only this kind'))
        .option('--limit <n>', 'at most this many items', integerIn(1, 100_000), 50)
        .option('--after <id>', 'continue after this item (the "next" id of the previous page)')
        .option('--held [reason]', 'only items held back (by ingest, e.g. implausible-time), or held for this reason')
        .addHelpText('after', examples('station-agent queue list', 'station-agent queue list --state failed --kind detection', 'station-agent queue list --limit 100 --after d1200', 'station-agent queue list --state pending --json | jq -r ".items[].id"', 'station-agent queue list --held implausible-time'))
        .action(async (flags) => (await import('./queue-actions.js')).listAction(flags));
    queue
        .command('show')
        .description('show one item with all its fields, attempts, last error and files')
        .argument('<id>', 'item id, e.g. r12 or d345')
        .addOption(configOption())
        .addOption(jsonOption())
        .addOption(kindOption('kind of a bare numeric id'))
        .addHelpText('after', examples('station-agent queue show d345', 'station-agent queue show 12 --kind soundscape --json'))
        .action(async (id, flags) => (await import('./queue-actions.js')).showAction(id, flags));
    queue
        .command('retry')
        .description('move failed items back to pending (attempts reset, due now)')
        .argument('[ids...]', 'item ids, e.g. r12 d345')
        .addOption(configOption())
        .addOption(jsonOption())
        .option('--failed', 'retry every failed item (with --kind: of that kind)')
        .addOption(kindOption('kind of bare numeric ids; with --failed, only that kind'))
        .addHelpText('after', `
Only failed items move; any other item is refused and reported, and the exit code
is then 1. A retried detection never re-uploads its soundscape.
${examples('station-agent queue retry d345 d346', 'station-agent queue retry --failed', 'station-agent queue retry --failed --kind detection --json')}`)
        .action(async (ids, flags) => (await import('./queue-actions.js')).retryAction(ids, flags));
    queue
        .command('release')
        .description('end the hold of held items: they upload as they are, due now')
        .argument('[ids...]', 'item ids, e.g. r12 d345')
        .addOption(configOption())
        .addOption(jsonOption())
        .option('--held [reason]', 'release every held item, or every item held for this reason (with --kind: of that kind)')
        .addOption(kindOption('kind of bare numeric ids; with --held, only that kind'))
        .addHelpText('after', `
Ingest holds an item back when it should not go as it is: implausible-time is a
recording start before 2020 or more than a day ahead of the clock. The daemon
releases such holds by itself once the clock makes the time plausible; a time
that is itself wrong (a recorder whose clock was not set) stays held. Then either
drop the items (queue drop), or release them to upload with the time they have. \`status\` shows holds per reason. Items
that are not held are refused and the exit code is 1.
${examples('station-agent queue list --held', 'station-agent queue release r12 d345', 'station-agent queue release --held implausible-time --json')}`)
        .action(async (ids, flags) => (await import('./queue-actions.js')).releaseAction(ids, flags));
    queue
        .command('drop')
        .description('give up on items for good: they are never uploaded (asks first)')
        .argument('[ids...]', 'item ids, e.g. r12 d345')
        .addOption(configOption())
        .addOption(jsonOption())
        .option('--failed', 'drop every failed item (with --kind: of that kind)')
        .addOption(kindOption('kind of bare numeric ids; with --failed, only that kind'))
        .option('-y, --yes', 'do not ask for confirmation (required when stdin is not a terminal)')
        .addHelpText('after', `
Pending and failed items can be dropped. Uploaded items are refused (the service
has them), and so are sending and unknown items: a request with them may have
reached the service, so the daemon settles them first; drop them once they are
pending or failed. Refused items make the exit code 1. Without --yes the command
asks on the terminal, and refuses when stdin is not a terminal. Every dropped item is logged as a
JSON line on stderr (what, from which state, its file or species).
${examples('station-agent queue drop r12', 'station-agent queue drop d345 d346 --yes', 'station-agent queue drop --failed --kind detection --yes')}`)
        .action(async (ids, flags) => (await import('./queue-actions.js')).dropAction(ids, flags));
}
