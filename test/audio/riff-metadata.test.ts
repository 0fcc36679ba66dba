import { describe, expect, it } from 'vitest';
import { decodeText, parseGuano, parseListInfo } from '../../src/audio/riff-metadata.js';
import { listInfoChunk } from '../helpers/wav-writer.js';

describe('GUANO', () => {
  it('splits on the first colon only (timestamps have colons), trims, keeps namespaces, accepts CRLF', () => {
    const body = Buffer.from(
      'GUANO|Version: 1.0\r\nTimestamp: 2024-05-01T06:00:00.5+02:00\r\nLoc Position: 47.1 8.2\r\nWAC|Gain:12\r\n\r\nnot a field\r\n\0\0',
    );
    expect(parseGuano(body)).toEqual({
      'GUANO|Version': '1.0',
      Timestamp: '2024-05-01T06:00:00.5+02:00',
      'Loc Position': '47.1 8.2',
      'WAC|Gain': '12',
    });
  });
});

describe('LIST/INFO', () => {
  it('reads every tag; ignores other list types', () => {
    const { body } = listInfoChunk({ IART: 'AudioMoth 1', ICMT: 'odd', ICRD: '2020-04-04' });
    expect(parseListInfo(body)).toEqual({ IART: 'AudioMoth 1', ICMT: 'odd', ICRD: '2020-04-04' });
    expect(parseListInfo(Buffer.from('adtlnote\x04\0\0\0abcd', 'latin1'))).toBeUndefined();
  });

  it('a tag whose size runs past the chunk is read as far as it goes', () => {
    const body = Buffer.from('INFOICMT\xff\0\0\0truncated comment', 'latin1');
    expect(parseListInfo(body)).toEqual({ ICMT: 'truncated comment' });
  });

  it('text: UTF-8 when valid, else Latin-1; stops at NUL', () => {
    expect(decodeText(Buffer.from('Grauhäubchenmeise\0junk', 'utf8'))).toBe('Grauhäubchenmeise');
    expect(decodeText(Buffer.from('Grauhäubchenmeise', 'latin1'))).toBe('Grauhäubchenmeise');
  });
});
