/**
 * The analyzer's labels file: one `Scientific name_Common name` per line (split at the first
 * `_`, as the analyzer itself does). It maps common names back to scientific names for the
 * result formats that carry only the common name (Raven tables up to v2.4, analyzerpi JSON).
 *
 * Rule for localised output (documented in docs/SIDECAR.md, "Species names"):
 * - The PRIMARY labels file (normally the English `..._Labels.txt`) names what is uploaded:
 *   whenever the primary labels know a scientific name, the uploaded common name is the
 *   primary one, whatever language the result file was written in.
 * - An optional LOCALISED labels file (e.g. `..._Labels_de.txt`, same scientific names,
 *   translated common names) only adds lookup keys: a German table's `Schwarzkopfmeise`
 *   resolves to `Poecile atricapillus`, which is then uploaded as `Black-capped Chickadee`.
 * - Common names are matched case-insensitively, with whitespace trimmed and collapsed and
 *   Unicode normalised (NFC). A name that leads to two different scientific names (in either
 *   file) is ambiguous: that row is an error naming both, never a guess.
 */
import { nameKey } from '../policy/names.js';
import { FileTooLargeError, NotRegularFileError, readRegularFileBounded } from '../system/regular-file.js';
import { LabelsFileError } from './errors.js';

export interface SpeciesName {
  scientificName: string;
  commonName: string;
}

export type CommonNameLookup =
  | { kind: 'found'; species: SpeciesName }
  | { kind: 'ambiguous'; candidates: SpeciesName[] }
  | { kind: 'missing' };

/**
 * The entries of a labels file, in file order. Accepts a UTF-8 BOM, LF or CRLF, blank lines
 * and a missing final newline. A line without `_` names itself (scientific = common), as in
 * the analyzer.
 */
export function parseLabelLines(text: string): SpeciesName[] {
  const entries: SpeciesName[] = [];
  for (const raw of text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/)) {
    const line = raw.trim();
    if (line === '') continue;
    const cut = line.indexOf('_');
    const scientificName = (cut < 0 ? line : line.slice(0, cut)).trim();
    const commonName = (cut < 0 ? line : line.slice(cut + 1)).trim();
    entries.push({ scientificName, commonName });
  }
  return entries;
}

export interface LabelsText {
  /** File name, for error messages. */
  name: string;
  text: string;
}

export class Labels {
  private readonly bySci = new Map<string, SpeciesName>();
  /** name key -> scientific-name keys of every entry (primary or localised) with that common name */
  private readonly byCommon = new Map<string, Set<string>>();

  private constructor(
    /** Number of entries in the primary labels file. */
    readonly size: number,
  ) {}

  /** Labels from the primary file's text and, optionally, a localised file's text. */
  static fromText(primary: LabelsText, localized?: LabelsText): Labels {
    const primaryEntries = parseLabelLines(primary.text);
    if (primaryEntries.length === 0) throw new LabelsFileError(primary.name, 'holds no labels');
    const labels = new Labels(primaryEntries.length);
    for (const entry of primaryEntries) labels.add(entry, true);
    if (localized) {
      const localizedEntries = parseLabelLines(localized.text);
      if (localizedEntries.length === 0) throw new LabelsFileError(localized.name, 'holds no labels');
      for (const entry of localizedEntries) labels.add(entry, false);
    }
    return labels;
  }

  /** Reads the primary labels file and, optionally, a localised one (UTF-8). */
  static async load(primaryPath: string, localizedPath?: string): Promise<Labels> {
    const primary = { name: primaryPath, text: await readLabelsFile(primaryPath) };
    const localized = localizedPath
      ? { name: localizedPath, text: await readLabelsFile(localizedPath) }
      : undefined;
    return Labels.fromText(primary, localized);
  }

  /** The primary entry for a scientific name (case-insensitive), or the localised one if only it has the name. */
  byScientificName(name: string): SpeciesName | undefined {
    return this.bySci.get(nameKey(name));
  }

  /** The species for a common name in either file, or undefined when unknown OR ambiguous (see `lookupCommonName`). */
  byCommonName(name: string): SpeciesName | undefined {
    const found = this.lookupCommonName(name);
    return found.kind === 'found' ? found.species : undefined;
  }

  lookupCommonName(name: string): CommonNameLookup {
    const sciKeys = this.byCommon.get(nameKey(name));
    if (!sciKeys) return { kind: 'missing' };
    const candidates = [...sciKeys].map((key) => this.bySci.get(key)!);
    if (candidates.length === 1) return { kind: 'found', species: candidates[0] };
    return { kind: 'ambiguous', candidates };
  }

  /**
   * Whether a name as an operator writes it in the config is one of the labels: a
   * scientific name, a common name (of either file), or a whole `Scientific_Common` line.
   */
  knows(name: string): boolean {
    const key = nameKey(name);
    if (this.bySci.has(key) || this.byCommon.has(key)) return true;
    const cut = name.indexOf('_');
    return cut > 0 && this.bySci.has(nameKey(name.slice(0, cut))) && this.byCommon.has(nameKey(name.slice(cut + 1)));
  }

  /** Every scientific and (primary) common name, in file order. */
  *names(): Generator<string> {
    for (const entry of this.bySci.values()) {
      yield entry.scientificName;
      if (entry.commonName !== entry.scientificName) yield entry.commonName;
    }
  }

  private add(entry: SpeciesName, primary: boolean): void {
    const sciKey = nameKey(entry.scientificName);
    // The primary file names the species; a localised file only fills gaps.
    if (!this.bySci.has(sciKey)) this.bySci.set(sciKey, entry);
    else if (primary) return; // a duplicate line in the primary file: the first one wins
    const commonKey = nameKey(entry.commonName);
    let sciKeys = this.byCommon.get(commonKey);
    if (!sciKeys) this.byCommon.set(commonKey, (sciKeys = new Set()));
    sciKeys.add(sciKey);
  }
}

/**
 * The largest labels file read: the real English file is about 200 KB (6522 lines); a
 * path pointing at a disk image or a log must not be read into memory whole.
 */
export const LABELS_FILE_MAX_BYTES = 4 * 1024 * 1024;

/**
 * Read like every file the agent opens: a regular file only (a FIFO swapped in would block a
 * libuv thread for ever, at start and at each reload), a link followed to a regular target
 * (labels files are often linked from the analyzer's install), and with a bound.
 */
async function readLabelsFile(filePath: string): Promise<string> {
  try {
    return (await readRegularFileBounded(filePath, LABELS_FILE_MAX_BYTES, { followSymlinks: true })).text;
  } catch (err) {
    if (err instanceof NotRegularFileError) throw new LabelsFileError(filePath, `not a regular file (${err.kind})`, { cause: err });
    if (err instanceof FileTooLargeError) throw new LabelsFileError(filePath, `larger than ${LABELS_FILE_MAX_BYTES} bytes, not read`, { cause: err });
    throw new LabelsFileError(filePath, `cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`, {
      cause: err,
    });
  }
}

export type SpeciesResolution = { ok: true; species: SpeciesName } | { ok: false; problem: string };

/**
 * The scientific and common name to upload for one detection, from what its row gives.
 * - A scientific name known to the labels: the labels' entry (its primary common name).
 * - A scientific name unknown to the labels (or no labels): the row's names as written.
 * - Only a common name: looked up in the labels; unknown or ambiguous is a problem.
 */
export function resolveSpecies(
  names: { scientificName?: string | undefined; commonName?: string | undefined },
  labels: Labels | undefined,
): SpeciesResolution {
  const scientificName = names.scientificName?.trim() ?? '';
  const commonName = names.commonName?.trim() ?? '';
  if (scientificName !== '') {
    const known = labels?.byScientificName(scientificName);
    if (known) return { ok: true, species: known };
    if (commonName === '') {
      return {
        ok: false,
        problem: `no common name for "${scientificName}" and ${labels ? 'the labels do not list it' : 'no labels file is configured'}`,
      };
    }
    return { ok: true, species: { scientificName, commonName } };
  }
  if (commonName === '') return { ok: false, problem: 'neither a scientific nor a common name' };
  if (!labels) {
    return {
      ok: false,
      problem: `only the common name "${commonName}" is given and no labels file is configured to find its scientific name`,
    };
  }
  const found = labels.lookupCommonName(commonName);
  if (found.kind === 'found') return { ok: true, species: found.species };
  if (found.kind === 'ambiguous') {
    const both = found.candidates.map((c) => `"${c.scientificName}" (${c.commonName})`).join(' and ');
    return { ok: false, problem: `common name "${commonName}" is ambiguous in the labels: ${both}` };
  }
  return { ok: false, problem: `common name "${commonName}" is not in the labels file(s)` };
}
