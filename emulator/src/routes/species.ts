import type { FastifyInstance } from 'fastify';
import type { FullSpecies, SpeciesInfoResponse, SpeciesLookupResponse } from '../../../src/wire/types.js';
import type { EmulatorContext } from '../context.js';
import { notFound } from '../http-errors.js';
import { bodyOf } from '../input/fields.js';
import { FULL_SPECIES_FIELDS, fullSpecies } from '../present/species.js';
import type { SpeciesRecord } from '../store/index.js';

/** Strings of a body field sent as a JSON array, a single string, or repeated form keys (`f` or `f[]`). */
function stringList(body: Record<string, unknown>, name: string): string[] {
  const value = body[name] ?? body[`${name}[]`];
  const items = Array.isArray(value) ? (value as unknown[]) : value === undefined || value === null ? [] : [value];
  return items.filter((v): v is string => typeof v === 'string' && v.trim() !== '');
}

/**
 * Species endpoints (no authentication: the spec leaves it open, and the data is public):
 * GET `/api/v1/species/{id}` and POST `/api/v1/species/lookup`.
 */
export function speciesRoutes(app: FastifyInstance, context: EmulatorContext): void {
  const { store } = context;

  app.get<{ Params: { id: string } }>('/api/v1/species/:id', (request) => {
    const id = /^\d+$/.test(request.params.id) ? Number(request.params.id) : undefined;
    const species = id === undefined ? undefined : store.species.byId(id);
    if (!species) throw notFound('Species not found');
    const body: SpeciesInfoResponse = { success: true, species: fullSpecies(species, context.mediaUrl) };
    return body;
  });

  /**
   * Keys of the answer are the requested `<scientific>_<common>` strings exactly as
   * sent. A species is found by its scientific name (case-insensitive), else by its
   * common name; identifiers that match nothing are left out of the answer.
   * `fields` limits each object to those names (unknown names are ignored; blank = all).
   */
  app.post('/api/v1/species/lookup', (request) => {
    const body = bodyOf(request.body);
    const requested = new Set(
      stringList(body, 'fields')
        .flatMap((f) => f.split(','))
        .map((f) => f.trim()),
    );
    const fields = FULL_SPECIES_FIELDS.filter((f) => requested.size === 0 || requested.has(f));
    const species: Record<string, Partial<FullSpecies>> = {};
    for (const identifier of stringList(body, 'species')) {
      const cut = identifier.indexOf('_');
      const scientific = cut < 0 ? identifier : identifier.slice(0, cut);
      const common = cut < 0 ? '' : identifier.slice(cut + 1);
      const found: SpeciesRecord | undefined =
        store.species.byScientificName(scientific) ?? (common.trim() ? store.species.byCommonName(common) : undefined);
      if (!found) continue;
      const full = fullSpecies(found, context.mediaUrl);
      species[identifier] = Object.fromEntries(fields.map((f) => [f, full[f]]));
    }
    const answer: SpeciesLookupResponse = { success: true, species };
    return answer;
  });
}
