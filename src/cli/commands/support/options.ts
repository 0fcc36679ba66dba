import { InvalidArgumentError, Option } from 'commander';
import { EXIT_CODES_HELP } from '../../exit-codes.js';

/**
 * Options every command shares, and argument parsers that turn a bad value into
 * commander's usage error (exit code 2) naming the option and what it accepts.
 */

export function configOption(): Option {
  return new Option('--config <path>', 'config file (default: $STATION_AGENT_CONFIG, else /etc/station-agent/config.json)');
}

export function jsonOption(): Option {
  return new Option('--json', 'print one JSON document on stdout (stable keys, for scripts)');
}

/** Parser of a whole number within [min, max]. */
export function integerIn(min: number, max: number = Number.MAX_SAFE_INTEGER): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
      const range = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `between ${min} and ${max}`;
      throw new InvalidArgumentError(`expected a whole number ${range}, got "${value}".`);
    }
    return n;
  };
}

/** Parser of a comma-separated list of allowed words; repeating the option adds to the list. */
export function listOf<T extends string>(allowed: readonly T[]): (value: string, previous: T[] | undefined) => T[] {
  return (value, previous) => {
    const items = value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (items.length === 0) throw new InvalidArgumentError(`expected one or more of ${allowed.join(', ')} (comma-separated).`);
    for (const item of items) {
      if (!(allowed as readonly string[]).includes(item)) {
        throw new InvalidArgumentError(`"${item}" is not one of ${allowed.join(', ')}.`);
      }
    }
    return [...(previous ?? []), ...(items as T[])];
  };
}

/** Parser of an ISO 8601 date or date-time (what the service's from/to/since take). */
export function isoDate(value: string): string {
  const v = value.trim();
  if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) || Number.isNaN(Date.parse(v))) {
    throw new InvalidArgumentError(`expected an ISO 8601 date or time such as 2025-05-01 or 2025-05-01T06:00:00+02:00, got "${value}".`);
  }
  return v;
}

/** `Examples:` block for `addHelpText('after', ...)`, followed by the documented exit codes. */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  ${l}`).join('\n')}\n${EXIT_CODES_HELP}\n`;
}
