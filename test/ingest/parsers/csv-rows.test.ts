import { describe, expect, it } from 'vitest';
import { splitCsvRecords } from '../../../src/ingest/parsers/csv-rows.js';

describe('splitCsvRecords (RFC 4180)', () => {
  it('splits plain rows and numbers lines from 1', () => {
    expect(splitCsvRecords('a,b,c\n1,2,3\n')).toEqual([
      { fields: ['a', 'b', 'c'], line: 1 },
      { fields: ['1', '2', '3'], line: 2 },
    ]);
  });

  it('keeps commas, doubled quotes and line breaks inside quotes', () => {
    const records = splitCsvRecords('x,"Grey Heron, Common","say ""hi"""\r\n"multi\r\nline",2,""\r\nnext,3,4');
    expect(records).toEqual([
      { fields: ['x', 'Grey Heron, Common', 'say "hi"'], line: 1 },
      { fields: ['multi\r\nline', '2', ''], line: 2 },
      { fields: ['next', '3', '4'], line: 4 },
    ]);
  });

  it('accepts CRLF, LF, a BOM, blank lines and no final line break', () => {
    expect(splitCsvRecords('\uFEFFa;b\r\n\r\n  \n1;2', ';')).toEqual([
      { fields: ['a', 'b'], line: 1 },
      { fields: ['1', '2'], line: 4 },
    ]);
  });

  it('keeps empty fields, including trailing ones', () => {
    expect(splitCsvRecords('a,,\n,b,')).toEqual([
      { fields: ['a', '', ''], line: 1 },
      { fields: ['', 'b', ''], line: 2 },
    ]);
  });

  it('is lenient with a quote inside an unquoted field', () => {
    expect(splitCsvRecords('Cooper\'s "Hawk",1')[0].fields).toEqual(['Cooper\'s "Hawk"', '1']);
  });

  it('reports an unterminated quote with the line it opened on', () => {
    const records = splitCsvRecords('a,b\n1,"open\n2,3\n');
    expect(records[0]).toEqual({ fields: ['a', 'b'], line: 1 });
    expect(records[1].line).toBe(2);
    expect(records[1].error).toBe('unterminated quoted field opened on line 2');
  });

  it('rejects an impossible delimiter', () => {
    expect(() => splitCsvRecords('a', '"')).toThrow(/invalid CSV delimiter/);
  });
});
