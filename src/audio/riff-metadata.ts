/**
 * Parsers for the metadata chunks recorders put in WAV files. Each takes a chunk body
 * (already read, size-capped by the caller) and never throws: metadata is a bonus, a
 * broken tag must not make a good recording unreadable.
 */

/** Broadcast Wave `bext` fields useful for dating a recording. */
export interface BextInfo {
  description: string;
  originator: string;
  /** `yyyy-mm-dd` (or `yyyy:mm:dd`, as some writers use), as written. */
  originationDate: string;
  /** `hh:mm:ss` (or `hh-mm-ss`), as written. */
  originationTime: string;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Text fields are NUL-terminated and padded; most writers use ASCII, some UTF-8, old ones Latin-1. */
export function decodeText(bytes: Buffer): string {
  const nul = bytes.indexOf(0);
  const raw = nul === -1 ? bytes : bytes.subarray(0, nul);
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    text = raw.toString('latin1');
  }
  return text.trim();
}

/**
 * A `LIST` chunk of type `INFO`: sub-chunks `IART`, `ICMT`, `ICRD`, ... Returns the tags
 * by id, or undefined for other list types (`adtl`, ...).
 */
export function parseListInfo(body: Buffer): Record<string, string> | undefined {
  if (body.length < 4 || body.toString('latin1', 0, 4) !== 'INFO') return undefined;
  const tags: Record<string, string> = {};
  let pos = 4;
  while (pos + 8 <= body.length) {
    const id = body.toString('latin1', pos, pos + 4);
    const size = body.readUInt32LE(pos + 4);
    const start = pos + 8;
    const end = Math.min(start + size, body.length);
    const value = decodeText(body.subarray(start, end));
    if (value !== '' && !(id in tags)) tags[id] = value;
    pos = start + size + (size & 1);
  }
  return tags;
}

/**
 * A GUANO `guan` chunk (bat/bird recorder metadata, https://github.com/riggsd/guano-spec):
 * UTF-8 lines `Key: Value`, the first being `GUANO|Version: 1.0`. Keys keep their
 * namespace prefix (`PET|Model`); the values are trimmed and otherwise as written.
 */
export function parseGuano(body: Buffer): Record<string, string> {
  const text = decodeText(body);
  const fields: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const key = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (key !== '') fields[key] = value;
  }
  return fields;
}

/** The fixed-size head of a `bext` chunk (EBU Tech 3285): 256+32+32+10+8 bytes. */
export function parseBext(body: Buffer): BextInfo | undefined {
  if (body.length < 338) return undefined;
  return {
    description: decodeText(body.subarray(0, 256)),
    originator: decodeText(body.subarray(256, 288)),
    originationDate: decodeText(body.subarray(320, 330)),
    originationTime: decodeText(body.subarray(330, 338)),
  };
}
