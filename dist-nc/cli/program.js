import { Command, CommanderError } from 'commander';
import { StationAgentError, errorCode, errorMessage } from '../errors.js';
import { redactDeep, redactSecrets } from '../wire/redact.js';
import { secretsRead } from '../config/secrets-read.js';
import { EXIT, EXIT_CODES_HELP } from './exit-codes.js';
import { writeJson } from './format/json.js';
import { VERSION } from '../version.js';
export function exitCodeFor(err) {
    const code = errorCode(err);
    if (code === 'ERR_CONFIG_INVALID')
        return EXIT.CONFIG;
    if (code === 'ERR_QUEUE')
        return EXIT.QUEUE;
    if (code === 'ERR_NETWORK_BEFORE_SEND' ||
        code === 'ERR_OUTCOME_UNKNOWN' ||
        code === 'ERR_HTTP_STATUS' ||
        code === 'ERR_SERVICE_REJECTED') {
        return EXIT.NETWORK;
    }
    if (code === 'ERR_USAGE')
        return EXIT.USAGE;
    return EXIT.FAILURE;
}
export function buildProgram(commands) {
    const program = new Command('station-agent')
        .description('Station-side edge agent for acoustic monitoring stations: watches the analyzer output folder,\n' +
        'queues soundscapes and detections durably, uploads them to the service exactly once.')
        .version(VERSION)
        .showHelpAfterError('(run with --help for usage)')
        .addHelpText('after', EXIT_CODES_HELP)
        .configureOutput({ outputError: (text) => void usageErrors.push(text), writeErr: (text) => void usageErrors.push(text) })
        .exitOverride();
    for (const register of commands)
        register(program);
    return program;
}
export async function runProgram(program, argv) {
    const json = wantsJson(argv);
    try {
        await program.parseAsync(argv);
        process.stderr.write(usageErrors.splice(0).join(''));
        return typeof process.exitCode === 'number' ? process.exitCode : EXIT.OK;
    }
    catch (err) {
        if (err instanceof CommanderError && err.exitCode === 0) {
            process.stderr.write(usageErrors.splice(0).join(''));
            return EXIT.OK;
        }
        if (secretsRead().length === 0)
            await learnSecrets(argv);
        const hide = (text) => redactSecrets(text, secretsRead());
        if (err instanceof CommanderError) {
            process.stderr.write(hide(usageErrors.splice(0).join('')));
            if (json)
                writeJson(process.stdout, { error: { code: 'ERR_USAGE', message: hide(err.message.replace(/^error: /, '')) } });
            return EXIT.USAGE;
        }
        process.stderr.write(hide(`station-agent: ${errorMessage(err)}\n`));
        if (json)
            writeJson(process.stdout, { error: redactDeep(errorJson(err), secretsRead()) });
        return exitCodeFor(err);
    }
}
const usageErrors = [];
async function learnSecrets(argv) {
    const args = argv.slice(2);
    const at = args.findIndex((a) => a === '--config' || a.startsWith('--config='));
    const named = at < 0 ? undefined : args[at].startsWith('--config=') ? args[at].slice('--config='.length) : args[at + 1];
    try {
        const { loadConfig } = await import('../config/load.js');
        await loadConfig({ path: named, cache: false, unreadableTokenFile: 'report' });
    }
    catch {
    }
}
function wantsJson(argv) {
    const args = argv.slice(2);
    const end = args.indexOf('--');
    return (end < 0 ? args : args.slice(0, end)).includes('--json');
}
function errorJson(err) {
    const fields = err instanceof StationAgentError ? err.toJSON() : {};
    delete fields.name;
    return redactDeep({ ...fields, code: errorCode(err), message: errorMessage(err) });
}
