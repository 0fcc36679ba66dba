import { CommandFailure } from './errors.js';
export const LOCAL_SERVICE_PACKAGE = '@station-agent/emulator';
export const DEMO_PACKAGE = '@station-agent/demo';
export function notInstalledMessage(command, name) {
    return (`'station-agent ${command}' needs ${name}, which a station does not install ` +
        `(bin/install lays down the agent alone). Run it from a development checkout of ` +
        `station-agent instead: npm ci && npm run ${command} (or: npm run build && node bin/station-agent ${command}).`);
}
export async function importDevPackage(name, command) {
    try {
        return (await import(name));
    }
    catch (err) {
        if (isMissingPackage(err, name))
            throw new CommandFailure(notInstalledMessage(command, name));
        throw err;
    }
}
function isMissingPackage(err, name) {
    return (err instanceof Error &&
        err.code === 'ERR_MODULE_NOT_FOUND' &&
        err.message.includes(`'${name}'`));
}
