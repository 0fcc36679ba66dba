import { ConfigError } from './errors.js';
import { validateLayers, type LayerInputs } from './validate.js';
import type { ChildAnswer } from './validate-apart.js';

/**
 * The short-lived process that validates for the daemon (validate-apart.ts says why):
 * reads the layers as JSON on standard input, answers with the validated config, or the
 * problems, as JSON on standard output, and exits. The token is taken out of the answer:
 * the daemon reads it again from where `tokenSource` says, as from the config cache.
 */
const chunks: Buffer[] = [];
for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
const inputs = JSON.parse(Buffer.concat(chunks).toString('utf8')) as LayerInputs;
let answer: ChildAnswer;
try {
  const validated = validateLayers(inputs);
  delete (validated.config.service as { token?: string }).token;
  answer = { ok: true, validated };
} catch (err) {
  // Anything else ends this process with an error, and the daemon validates in itself.
  if (!(err instanceof ConfigError)) throw err;
  answer = { ok: false, problems: [...err.problems] };
}
process.stdout.write(JSON.stringify(answer));
