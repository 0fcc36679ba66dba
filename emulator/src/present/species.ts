import type { FullSpecies, Species } from '../../../src/wire/types.js';
import type { SpeciesRecord } from '../store/index.js';

/**
 * Species as the REST interface shows them. Image URLs point at placeholder images
 * the local service draws itself (`/media/species/<id>/image.svg`). The encyclopedia,
 * registry and credit fields are null: the local service has no such facts and does
 * not invent them.
 */
export function speciesRef(species: SpeciesRecord, mediaUrl: string): Species {
  return {
    id: species.id,
    commonName: species.commonName,
    scientificName: species.scientificName,
    color: species.color,
    classification: species.classification,
    imageUrl: `${mediaUrl}/species/${species.id}/image.svg`,
    thumbnailUrl: `${mediaUrl}/species/${species.id}/thumbnail.svg`,
  };
}

export function fullSpecies(species: SpeciesRecord, mediaUrl: string): FullSpecies {
  return {
    ...speciesRef(species, mediaUrl),
    encyclopediaUrl: null,
    encyclopediaSummary: null,
    alpha: species.alpha,
    alpha6: species.alpha6,
    registryCode: null,
    registryUrl: null,
    imageCredit: null,
    imageCreditHtml: null,
    imageLicense: null,
    imageLicenseUrl: null,
  };
}

export const FULL_SPECIES_FIELDS: readonly (keyof FullSpecies)[] = [
  'id',
  'commonName',
  'scientificName',
  'color',
  'classification',
  'imageUrl',
  'thumbnailUrl',
  'encyclopediaUrl',
  'encyclopediaSummary',
  'alpha',
  'alpha6',
  'registryCode',
  'registryUrl',
  'imageCredit',
  'imageCreditHtml',
  'imageLicense',
  'imageLicenseUrl',
];
