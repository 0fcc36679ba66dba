import { pino } from 'pino';
import { redactDeep, redactText } from '../wire/redact.js';
export const LOG_REDACT_KEYS = new Set(['token', 'adminToken', 'authorization', 'x-auth-token']);
const secretLists = new WeakMap();
export function createLogger(options) {
    const secrets = [];
    const addSecrets = (values) => {
        for (const value of values)
            if (value && !secrets.includes(value))
                secrets.push(value);
    };
    addSecrets([options.token, ...(options.secrets ?? [])]);
    const blank = { blankKeys: LOG_REDACT_KEYS };
    const logger = pino({
        level: options.level,
        base: null,
        timestamp: pino.stdTimeFunctions.isoTime,
        formatters: {
            level: (label) => ({ level: label }),
            bindings: (bindings) => redactDeep(bindings, secrets, blank),
        },
        hooks: {
            logMethod(args, method) {
                const scrubbed = args.map((arg) => redactDeep(arg, secrets, blank));
                method.apply(this, scrubbed);
            },
            streamWrite: (line) => redactText(line, secrets),
        },
    }, options.destination ?? pino.destination({ dest: 1, sync: true }));
    secretLists.set(logger, secrets);
    return logger;
}
export function addLogSecrets(logger, ...values) {
    let root = logger;
    let list = secretLists.get(root);
    while (!list && root) {
        root = Object.getPrototypeOf(root);
        list = root ? secretLists.get(root) : undefined;
    }
    if (!list)
        throw new Error('addLogSecrets: not a logger made by createLogger');
    for (const value of values)
        if (value && !list.includes(value))
            list.push(value);
}
