import { StationAgentError } from '../errors.js';
export class ConfigError extends StationAgentError {
    code = 'ERR_CONFIG_INVALID';
    problems;
    file;
    constructor(problems, file, context, options) {
        super(renderMessage(problems, file, context), options);
        this.problems = problems;
        this.file = file;
    }
    toJSON() {
        return { ...super.toJSON(), file: this.file, problems: this.problems };
    }
}
function renderMessage(problems, file, context) {
    const where = context ?? (file ? `config file ${file}` : 'no config file');
    if (problems.length === 1)
        return `invalid configuration (${where}): ${problems[0]}`;
    return `invalid configuration (${where}):\n${problems.map((p) => `  - ${p}`).join('\n')}`;
}
