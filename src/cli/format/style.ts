/**
 * Colours for people, never for scripts: on only when the stream is a terminal,
 * `NO_COLOR` is unset or empty (https://no-color.org) and `TERM` is not `dumb`.
 * A handful of ANSI codes; no colour library needed.
 */

export interface Style {
  readonly enabled: boolean;
  bold: (text: string) => string;
  dim: (text: string) => string;
  red: (text: string) => string;
  green: (text: string) => string;
  yellow: (text: string) => string;
  cyan: (text: string) => string;
}

interface ColorTarget {
  isTTY?: boolean;
}

function colorEnabled(stream: ColorTarget, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  return stream.isTTY === true;
}

function sgr(open: number, close: number, enabled: boolean): (text: string) => string {
  return enabled ? (text) => `\u001b[${open}m${text}\u001b[${close}m` : (text) => text;
}

function createStyle(enabled: boolean): Style {
  return {
    enabled,
    bold: sgr(1, 22, enabled),
    dim: sgr(2, 22, enabled),
    red: sgr(31, 39, enabled),
    green: sgr(32, 39, enabled),
    yellow: sgr(33, 39, enabled),
    cyan: sgr(36, 39, enabled),
  };
}

export function styleFor(stream: ColorTarget, env: NodeJS.ProcessEnv = process.env): Style {
  return createStyle(colorEnabled(stream, env));
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

/** The text as it shows on screen (escape codes removed), for column widths. */
export function visibleLength(text: string): number {
  return [...text.replace(ANSI, '')].length;
}
