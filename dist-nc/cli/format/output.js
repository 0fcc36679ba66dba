import { styleFor } from './style.js';
import { writeJson } from './json.js';
import { secretsRead } from '../../config/secrets-read.js';
import { redactSecrets } from '../../wire/redact.js';
export function createOutput(stdout = process.stdout, stderr = process.stderr, env = process.env) {
    quietOnClosedPipe(stdout);
    const style = styleFor(stdout, env);
    const errStyle = styleFor(stderr, env);
    const out = withoutSecrets(stdout);
    const err = Object.assign(withoutSecrets(stderr), { isTTY: stderr.isTTY });
    return {
        line: (text = '') => void out.write(`${text}\n`),
        lines: (texts) => void (texts.length ? out.write(`${texts.join('\n')}\n`) : undefined),
        json: (value) => writeJson(out, value),
        note: (text) => void err.write(`${text}\n`),
        warn: (text) => void err.write(`${errStyle.yellow('warning:')} ${text}\n`),
        style,
        errStyle,
        stdout: out,
        stderr: err,
    };
}
export function withoutSecrets(stream) {
    return { write: (chunk) => stream.write(redactSecrets(chunk, secretsRead())) };
}
const guarded = new WeakSet();
function quietOnClosedPipe(stream) {
    if (guarded.has(stream))
        return;
    guarded.add(stream);
    stream.on('error', (err) => {
        if (err.code === 'EPIPE')
            process.exit(0);
        throw err;
    });
}
