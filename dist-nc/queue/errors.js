import { StationAgentError } from '../errors.js';
export class QueueError extends StationAgentError {
    code;
    constructor(code, message, options) {
        super(message, options);
        this.code = code;
    }
}
export class QueueTransitionError extends QueueError {
    item;
    from;
    to;
    constructor(item, from, to, allowedFrom, detail) {
        super('ERR_QUEUE_TRANSITION', detail
            ? `cannot move ${item} from ${from} to ${to}: ${detail}`
            : `cannot move ${item} from ${from} to ${to} (allowed from: ${allowedFrom.join(', ') || 'nothing'})`);
        this.item = item;
        this.from = from;
        this.to = to;
    }
    toJSON() {
        return { ...super.toJSON(), item: this.item, from: this.from, to: this.to };
    }
}
