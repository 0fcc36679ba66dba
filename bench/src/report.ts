/**
 * The benchmark's figures and how they are shown: a table (figure, measured,
 * target, result) or one JSON document. A figure without a target is reported
 * for information (its result is `-`).
 */
export interface Target {
  op: '>=' | '<=';
  value: number;
}

export interface Figure {
  /** Stable key, e.g. `drain.agentVsRaw`. */
  id: string;
  name: string;
  /** The measured number (null when it could not be measured). */
  value: number | null;
  unit: string;
  /** The number as shown. */
  measured: string;
  target: Target | null;
  /** The target as shown, e.g. `>= 0.80x raw`. */
  targetText: string | null;
  pass: boolean | null;
  /** What else was measured on the way (raw times, counts). */
  detail?: Record<string, unknown>;
}

export interface FigureSpec {
  id: string;
  name: string;
  value: number | null;
  unit: string;
  /** Decimals shown (default 2). */
  digits?: number;
  target?: Target;
  /** Shown after the target's number, e.g. `x raw`; default the unit. */
  targetUnit?: string;
  detail?: Record<string, unknown>;
}

export function figure(spec: FigureSpec): Figure {
  const digits = spec.digits ?? 2;
  const unit = spec.unit ? ` ${spec.unit}` : '';
  const targetUnit = spec.targetUnit ?? unit;
  const target = spec.target ?? null;
  const value = spec.value;
  return {
    id: spec.id,
    name: spec.name,
    value,
    unit: spec.unit,
    measured: value == null || !Number.isFinite(value) ? 'n/a' : `${formatNumber(value, digits)}${unit}`,
    target,
    targetText: target ? `${target.op} ${formatNumber(target.value, digits)}${targetUnit}` : null,
    pass: target && value != null && Number.isFinite(value) ? (target.op === '>=' ? value >= target.value : value <= target.value) : null,
    ...(spec.detail ? { detail: spec.detail } : {}),
  };
}

export function formatNumber(n: number, digits: number): string {
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function renderTable(figures: readonly Figure[]): string {
  const rows = [
    ['figure', 'measured', 'target', 'result'],
    ...figures.map((f) => [f.name, f.measured, f.targetText ?? '-', f.pass === null ? '-' : f.pass ? 'pass' : 'FAIL']),
  ];
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  const line = (r: string[]) => r.map((cell, c) => (c === 1 ? cell.padStart(widths[c]) : cell.padEnd(widths[c]))).join('  ').trimEnd();
  return [line(rows[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

/** The p-th percentile (0..100) by nearest rank; NaN for no samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/** The least-squares slope of `ys` over `xs` (a growth per unit of `xs`); null for fewer than 2 distinct xs. */
export function leastSquaresSlope(xs: readonly number[], ys: readonly number[]): number | null {
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  const sxx = xs.reduce((a, x) => a + (x - mx) ** 2, 0);
  return sxx > 0 ? xs.reduce((a, x, k) => a + (x - mx) * (ys[k] - my), 0) / sxx : null;
}

export function median(samples: readonly number[]): number {
  return percentile(samples, 50);
}
