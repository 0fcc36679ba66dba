import { StationAgentError } from '../errors.js';
export class ResultFileError extends StationAgentError {
    fileName;
    code = 'ERR_RESULT_FILE';
    constructor(fileName, problem, options) {
        super(`${fileName}: ${problem}`, options);
        this.fileName = fileName;
    }
    toJSON() {
        return { ...super.toJSON(), fileName: this.fileName };
    }
}
export class LabelsFileError extends StationAgentError {
    fileName;
    code = 'ERR_LABELS_FILE';
    constructor(fileName, problem, options) {
        super(`labels file ${fileName}: ${problem}`, options);
        this.fileName = fileName;
    }
    toJSON() {
        return { ...super.toJSON(), fileName: this.fileName };
    }
}
