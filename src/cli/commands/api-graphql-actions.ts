import path from 'node:path';
import { createOutput } from '../format/output.js';
import { renderTable, type Column } from '../format/table.js';
import { dataOf, postGraphql, stationScope, type GraphqlPeriod, type StationScopeFlags } from './graphql-support.js';
import { loadCliConfig } from './support/context.js';
import { UsageError } from './support/errors.js';
import { fileProblem } from '../../config/secret-files.js';
import { readRegularFileBounded } from '../../system/regular-file.js';
import { redactText } from '../../wire/redact.js';

export interface GraphqlQueryFlags {
  config?: string;
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

export interface GraphqlReadFlags extends StationScopeFlags {
  config?: string;
  json?: boolean;
  period?: GraphqlPeriod;
  from?: string;
  to?: string;
  speciesId?: string;
  stationType?: string[];
  limit?: number;
  offset?: number;
}

/** The actions of the GraphQL reads of `station-agent api`, loaded only when one runs. */

/** `--period`/`--from`/`--to` as the service's InputDuration; null leaves its default (the last 24 hours). */
function periodInput(flags: Pick<GraphqlReadFlags, 'period' | 'from' | 'to'>): Record<string, unknown> | null {
  if (flags.from || flags.to) return { ...(flags.from ? { from: flags.from } : {}), ...(flags.to ? { to: flags.to } : {}) };
  const period: GraphqlPeriod = flags.period ?? 'day';
  // "all": from the first day the service can hold.
  return period === 'all' ? { from: '1970-01-01' } : { count: 1, unit: period };
}

/** A query is a few kilobytes; a bigger file is not one. */
const QUERY_FILE_MAX_BYTES = 1024 * 1024;

/**
 * The query text from `--query`: as given, `-` for stdin, `@file` from a regular file (a
 * FIFO would block the read until a writer came). The station token (in the secret
 * registry once the config is loaded) is redacted from an error in case it was pasted as
 * the file name.
 */
async function readQuery(source: string): Promise<string> {
  if (source === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }
  if (source.startsWith('@')) {
    const file = source.slice(1);
    try {
      return (await readRegularFileBounded(file, QUERY_FILE_MAX_BYTES, { followSymlinks: true })).text;
    } catch (err) {
      throw new UsageError(redactText(`--query ${source}: the file ${path.resolve(file)} ${fileProblem(err)}`));
    }
  }
  return source;
}

export async function graphqlAction(flags: GraphqlQueryFlags): Promise<void> {
  const loaded = await loadCliConfig(flags);
  const query = await readQuery(flags.query);
  if (query.trim() === '') throw new UsageError('--query is empty');
  const { graphqlUrl, timeoutMs } = loaded.config.service;
  const answer = await postGraphql(graphqlUrl, { query, variables: flags.variables, operationName: flags.operationName }, timeoutMs);
  createOutput().json(answer);
  if (answer.errors?.length) process.exitCode = 1;
}

interface Scope {
  url: string;
  timeoutMs: number;
  variables: Record<string, unknown>;
}

async function scope(flags: GraphqlReadFlags): Promise<Scope> {
  const loaded = await loadCliConfig(flags);
  const stationIds = await stationScope(loaded, flags);
  const variables: Record<string, unknown> = { period: periodInput(flags), stationIds, stationTypes: flags.stationType, speciesId: flags.speciesId };
  return { url: loaded.config.service.graphqlUrl, timeoutMs: loaded.config.service.timeoutMs, variables };
}

interface TopSpecies {
  count: number;
  averageProbability: number | null;
  speciesId: string;
  species: { commonName: string; scientificName: string | null } | null;
  breakdown: { almostCertain: number; veryLikely: number; uncertain: number; unlikely: number } | null;
}

const TOP_SPECIES = `
query TopSpecies($period: InputDuration, $stationIds: [ID!], $stationTypes: [String!], $speciesId: ID, $limit: Int, $offset: Int) {
  topSpecies(period: $period, stationIds: $stationIds, stationTypes: $stationTypes, speciesId: $speciesId, limit: $limit, offset: $offset) {
    count averageProbability speciesId
    species { commonName scientificName }
    breakdown { almostCertain veryLikely uncertain unlikely }
  }
}`;

export async function topSpeciesAction(flags: GraphqlReadFlags): Promise<void> {
  const { url, timeoutMs, variables } = await scope(flags);
  const data = dataOf(
    await postGraphql<{ topSpecies: TopSpecies[] }>(url, { query: TOP_SPECIES, variables: { ...variables, limit: flags.limit, offset: flags.offset } }, timeoutMs),
  );
  const out = createOutput();
  if (flags.json) return out.json({ topSpecies: data.topSpecies });
  if (data.topSpecies.length === 0) return out.note('no detections in the period');
  const n = (v: number | null | undefined) => String(v ?? 0);
  const columns: Column<TopSpecies & { rank: number }>[] = [
    { header: '#', value: (r) => String(r.rank), align: 'right' },
    { header: 'SPECIES', value: (r) => r.species?.commonName ?? r.speciesId, maxWidth: 32 },
    { header: 'SCIENTIFIC NAME', value: (r) => out.style.dim(r.species?.scientificName ?? ''), maxWidth: 32 },
    { header: 'DETECTIONS', value: (r) => String(r.count), align: 'right' },
    { header: 'ALMOST CERTAIN', value: (r) => n(r.breakdown?.almostCertain), align: 'right' },
    { header: 'VERY LIKELY', value: (r) => n(r.breakdown?.veryLikely), align: 'right' },
    { header: 'UNCERTAIN', value: (r) => n(r.breakdown?.uncertain), align: 'right' },
    { header: 'UNLIKELY', value: (r) => n(r.breakdown?.unlikely), align: 'right' },
    { header: 'AVG PROBABILITY', value: (r) => (r.averageProbability === null ? '-' : r.averageProbability.toFixed(3)), align: 'right' },
  ];
  const offset = flags.offset ?? 0;
  out.lines(renderTable(columns, data.topSpecies.map((row, i) => ({ ...row, rank: offset + i + 1 })), out.style.bold));
}

interface Counts {
  detections: number;
  species: number;
  stations: number;
  analyzer: number | null;
  breakdown: { stations: { type: string; count: number }[] };
}

const COUNTS = `
query Counts($period: InputDuration, $stationIds: [ID!], $stationTypes: [String!], $speciesId: ID) {
  counts(period: $period, stationIds: $stationIds, stationTypes: $stationTypes, speciesId: $speciesId) {
    detections species stations analyzer
    breakdown { stations { type count } }
  }
}`;

export async function countsAction(flags: GraphqlReadFlags): Promise<void> {
  const { url, timeoutMs, variables } = await scope(flags);
  const { counts } = dataOf(await postGraphql<{ counts: Counts }>(url, { query: COUNTS, variables }, timeoutMs));
  const out = createOutput();
  if (flags.json) return out.json({ counts });
  const byType = counts.breakdown.stations.map((s) => `${s.type} ${s.count}`).join(', ');
  out.lines([
    `detections: ${counts.detections}`,
    `species:    ${counts.species}`,
    `stations:   ${counts.stations}${byType ? ` (${byType})` : ''}`,
    `analyzer:   ${counts.analyzer ?? '-'}`,
  ]);
}
