import { GraphqlInputError } from './errors.js';

/**
 * GraphQL ids are opaque: the Base64 of `<Type>:<number>` (e.g. `Detection:3200000001`
 * -> `RGV0ZWN0aW9uOjMyMDAwMDAwMDE=`). On input, the same string or the plain number
 * (as an Int or a string of digits) is accepted, so the REST ids work unchanged.
 */
export type IdType = 'Detection' | 'Sighting' | 'Soundscape' | 'Species' | 'Station';

export function encodeId(type: IdType, id: number): string {
  return Buffer.from(`${type}:${id}`, 'utf8').toString('base64');
}

/** Decodes one id argument; `argument` names it in the error (e.g. `stationIds[2]`). */
export function decodeId(value: string | number, type: IdType, argument: string): number {
  const text = String(value).trim();
  if (/^\d+$/.test(text)) return checked(Number(text), value, type, argument);
  if (/^[A-Za-z0-9+/]+={0,2}$/.test(text)) {
    const decoded = /^([A-Za-z]+):(\d+)$/.exec(Buffer.from(text, 'base64').toString('utf8'));
    if (decoded?.[1] === type) return checked(Number(decoded[2]), value, type, argument);
    if (decoded) throw new GraphqlInputError(`${argument}: ${JSON.stringify(value)} is a ${decoded[1]} id, not a ${type} id`);
  }
  throw new GraphqlInputError(`${argument}: ${JSON.stringify(value)} is not a ${type} id (the id from a response, or its number)`);
}

function checked(n: number, value: string | number, type: IdType, argument: string): number {
  if (!Number.isSafeInteger(n)) throw new GraphqlInputError(`${argument}: ${JSON.stringify(value)} is not a ${type} id (too large)`);
  return n;
}

/** Decodes an optional list of ids; null/undefined and an empty list both mean "no filter". */
export function decodeIds(values: readonly (string | number)[] | null | undefined, type: IdType, argument: string): number[] | undefined {
  if (!values?.length) return undefined;
  return values.map((v, i) => decodeId(v, type, `${argument}[${i}]`));
}
