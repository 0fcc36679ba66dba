import { ConfigError } from './errors.js';
import { validateLayers } from './validate.js';
const chunks = [];
for await (const chunk of process.stdin)
    chunks.push(chunk);
const inputs = JSON.parse(Buffer.concat(chunks).toString('utf8'));
let answer;
try {
    const validated = validateLayers(inputs);
    delete validated.config.service.token;
    answer = { ok: true, validated };
}
catch (err) {
    if (!(err instanceof ConfigError))
        throw err;
    answer = { ok: false, problems: [...err.problems] };
}
process.stdout.write(JSON.stringify(answer));
