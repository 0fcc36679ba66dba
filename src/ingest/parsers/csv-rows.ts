/**
 * A small RFC 4180 record splitter (no CSV library is installed). Handles quoted fields,
 * doubled quotes (`""` -> `"`), delimiters and line breaks inside quotes, CRLF/LF/CR line
 * ends, a UTF-8 BOM, blank lines (skipped) and any one-character delimiter (`,` or `;`).
 *
 * Lenient where real files are sloppy: a quote inside an unquoted field is kept literally,
 * and text after a closing quote is appended to the field. An unterminated quote is the one
 * structural error: that record carries `error` and ends the input.
 */
import { stripBom } from './text.js';

export interface CsvRecord {
  fields: string[];
  /** 1-based line on which the record starts. */
  line: number;
  /** Set when the record is malformed (an unterminated quoted field). */
  error?: string;
}

export function splitCsvRecords(input: string, delimiter = ',', firstLine = 1): CsvRecord[] {
  if (delimiter.length !== 1 || delimiter === '"' || delimiter === '\n' || delimiter === '\r') {
    throw new Error(`invalid CSV delimiter ${JSON.stringify(delimiter)}`);
  }
  const text = stripBom(input);
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = '';
  // `firstLine`: the input's first line in its file (a streamed record starts mid-file).
  let line = firstLine;
  let recordLine = firstLine;
  let i = 0;

  const endRecord = () => {
    fields.push(field);
    // A blank (or whitespace-only) line is no record.
    if (!(fields.length === 1 && fields[0].trim() === '')) records.push({ fields, line: recordLine });
    fields = [];
    field = '';
  };

  while (i < text.length) {
    const c = text[i];
    if (c === '"' && field === '') {
      // Quoted field: read to the closing quote, keeping line breaks and delimiters.
      const quoteLine = line;
      i++;
      let closed = false;
      while (i < text.length) {
        const q = text[i];
        if (q === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          closed = true;
          break;
        }
        if (q === '\n' || (q === '\r' && text[i + 1] !== '\n')) line++;
        field += q;
        i++;
      }
      if (!closed) {
        fields.push(field);
        records.push({ fields, line: recordLine, error: `unterminated quoted field opened on line ${quoteLine}` });
        return records;
      }
      continue;
    }
    if (c === delimiter) {
      fields.push(field);
      field = '';
      i++;
      continue;
    }
    if (c === '\r' || c === '\n') {
      endRecord();
      i += c === '\r' && text[i + 1] === '\n' ? 2 : 1;
      line++;
      recordLine = line;
      continue;
    }
    field += c;
    i++;
  }
  if (field !== '' || fields.length > 0) endRecord();
  return records;
}
