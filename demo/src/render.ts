import { renderTable, type Column } from '../../src/cli/format/table.js';
import { visibleLength, type Style } from '../../src/cli/format/style.js';
import type { ServiceSummary } from './service-summary.js';

type SpeciesRow = ServiceSummary['species'][number];

const COLUMNS: Column<SpeciesRow>[] = [
  { header: 'Species', value: (s) => s.commonName, maxWidth: 32 },
  { header: 'Scientific name', value: (s) => s.scientificName, maxWidth: 32 },
  { header: 'Detections', value: (s) => String(s.detections.total), align: 'right' },
  { header: 'almost certain', value: (s) => String(s.detections.almostCertain), align: 'right' },
  { header: 'very likely', value: (s) => String(s.detections.veryLikely), align: 'right' },
  { header: 'uncertain', value: (s) => String(s.detections.uncertain), align: 'right' },
  { header: 'unlikely', value: (s) => String(s.detections.unlikely), align: 'right' },
];

/** The species table and the soundscape line, as the demo prints them. */
export function renderSummary(summary: ServiceSummary, style: Style): string[] {
  const totals: SpeciesRow = {
    commonName: 'Total',
    scientificName: `${summary.species.length} species`,
    detections: summary.species.reduce(
      (t, s) => ({
        total: t.total + s.detections.total,
        almostCertain: t.almostCertain + s.detections.almostCertain,
        veryLikely: t.veryLikely + s.detections.veryLikely,
        uncertain: t.uncertain + s.detections.uncertain,
        unlikely: t.unlikely + s.detections.unlikely,
      }),
      { total: 0, almostCertain: 0, veryLikely: 0, uncertain: 0, unlikely: 0 },
    ),
  };
  const lines = renderTable(COLUMNS, [...summary.species, totals], style.bold);
  const width = Math.max(...lines.map(visibleLength));
  // A rule above the totals row.
  lines.splice(lines.length - 1, 0, '-'.repeat(width));
  const { count, totalDurationSec } = summary.soundscapes;
  lines.push('', `Soundscapes: ${count}, ${formatDuration(totalDurationSec)} of audio`);
  return lines;
}

export function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  return s % 60 === 0 ? `${m} min` : `${m} min ${s % 60} s`;
}
