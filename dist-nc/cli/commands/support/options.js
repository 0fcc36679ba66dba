import { InvalidArgumentError, Option } from 'commander';
import { EXIT_CODES_HELP } from '../../exit-codes.js';
export function configOption() {
    return new Option('--config <path>', 'config file (default: $STATION_AGENT_CONFIG, else /etc/station-agent/config.json)');
}
export function jsonOption() {
    return new Option('--json', 'print one JSON document on stdout (stable keys, for scripts)');
}
export function integerIn(min, max = Number.MAX_SAFE_INTEGER) {
    return (value) => {
        const n = Number(value);
        if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
            const range = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `between ${min} and ${max}`;
            throw new InvalidArgumentError(`expected a whole number ${range}, got "${value}".`);
        }
        return n;
    };
}
export function listOf(allowed) {
    return (value, previous) => {
        const items = value
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean);
        if (items.length === 0)
            throw new InvalidArgumentError(`expected one or more of ${allowed.join(', ')} (comma-separated).`);
        for (const item of items) {
            if (!allowed.includes(item)) {
                throw new InvalidArgumentError(`"${item}" is not one of ${allowed.join(', ')}.`);
            }
        }
        return [...(previous ?? []), ...items];
    };
}
export function isoDate(value) {
    const v = value.trim();
    if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) || Number.isNaN(Date.parse(v))) {
        throw new InvalidArgumentError(`expected an ISO 8601 date or time such as 2025-05-01 or 2025-05-01T06:00:00+02:00, got "${value}".`);
    }
    return v;
}
export function examples(...lines) {
    return `\nExamples:\n${lines.map((l) => `  ${l}`).join('\n')}\n${EXIT_CODES_HELP}\n`;
}
