import { EXIT, EXIT_MEANINGS } from '../errors.js';

/** The exit codes in `--help`, from the register's table (src/errors.ts, `EXIT`). */
export const EXIT_CODES_HELP = `
Exit codes:
${(Object.keys(EXIT) as (keyof typeof EXIT)[]).map((k) => `${String(EXIT[k]).padStart(3)}  ${EXIT_MEANINGS[k].label}`).join('\n')}`;
