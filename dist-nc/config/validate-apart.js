import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConfigError } from './errors.js';
const CHILD_SCRIPT = fileURLToPath(new URL('./validate-child.js', import.meta.url));
const CHILD_TIMEOUT_MS = 60_000;
export async function validateApart(inputs) {
    const answer = existsSync(CHILD_SCRIPT) ? await askChild(inputs).catch(() => null) : null;
    if (!answer) {
        const { validateLayers } = await import('./validate.js');
        return validateLayers(inputs);
    }
    if (!answer.ok)
        throw new ConfigError(answer.problems, inputs.filePath, inputs.context);
    return answer.validated;
}
function askChild(inputs) {
    return new Promise((resolve, reject) => {
        const child = spawn(process.execPath, [CHILD_SCRIPT], { stdio: ['pipe', 'pipe', 'ignore'], timeout: CHILD_TIMEOUT_MS });
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk));
        child.once('error', reject);
        child.once('close', (code, signal) => {
            if (code !== 0)
                return reject(new Error(`the validating process ended with ${signal ?? `code ${code}`}`));
            try {
                resolve(JSON.parse(out));
            }
            catch {
                reject(new Error('the validating process answered something other than JSON'));
            }
        });
        child.stdin.once('error', () => { });
        child.stdin.end(JSON.stringify(inputs));
    });
}
