import type { Classification } from '../../../src/wire/types.js';

/**
 * Genera of the analyzer's label lists (and a few common ones beyond them) that are
 * not birds. A labels file carries no taxonomy, so the classification of a species
 * is inferred from its genus; every genus not listed here is taken as avian.
 */
const GENERA: Record<Exclude<Classification, 'avian'>, readonly string[]> = {
  bat: [
    'Antrozous', 'Barbastella', 'Chalinolobus', 'Corynorhinus', 'Eptesicus', 'Euderma', 'Eumops', 'Hypsugo',
    'Idionycteris', 'Lasionycteris', 'Lasiurus', 'Miniopterus', 'Molossus', 'Myotis', 'Nyctalus', 'Nycticeius',
    'Nyctinomops', 'Parastrellus', 'Perimyotis', 'Pipistrellus', 'Plecotus', 'Rhinolophus', 'Tadarida',
    'Vespadelus', 'Vespertilio',
  ],
  amphibian: [
    'Acris', 'Alytes', 'Anaxyrus', 'Bombina', 'Bufo', 'Bufotes', 'Crinia', 'Dryophytes', 'Eleutherodactylus',
    'Epidalea', 'Gastrophryne', 'Hyla', 'Hyliola', 'Incilius', 'Limnodynastes', 'Lithobates', 'Litoria',
    'Pelobates', 'Pelophylax', 'Pseudacris', 'Rana', 'Rhinella', 'Scaphiopus', 'Spea',
  ],
  insect: [
    'Allonemobius', 'Amblycorypha', 'Anaxipha', 'Atlanticus', 'Chorthippus', 'Conocephalus', 'Cyrtoxipha',
    'Eunemobius', 'Gryllotalpa', 'Gryllus', 'Magicicada', 'Microcentrum', 'Miogryllus', 'Neoconocephalus',
    'Neonemobius', 'Neotibicen', 'Oecanthus', 'Orchelimum', 'Orocharis', 'Phyllopalpus', 'Pholidoptera',
    'Pterophylla', 'Scudderia', 'Tettigonia',
  ],
  mammal: ['Canis', 'Odocoileus', 'Sciurus', 'Tamias', 'Tamiasciurus', 'Vulpes'],
  reptile: ['Gekko', 'Hemidactylus', 'Ptyodactylus', 'Tokay'],
};

const BY_GENUS = new Map<string, Classification>(
  Object.entries(GENERA).flatMap(([classification, genera]) =>
    genera.map((genus) => [genus, classification as Classification] as const),
  ),
);

export function inferClassification(scientificName: string): Classification {
  const genus = scientificName.trim().split(/\s+/)[0] ?? '';
  return BY_GENUS.get(genus) ?? 'avian';
}
