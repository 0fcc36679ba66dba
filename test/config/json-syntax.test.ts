import { describe, expect, it } from 'vitest';
import { findJsonSyntaxError } from '../../src/config/json-syntax.js';

describe('findJsonSyntaxError', () => {
  it('finds nothing wrong in valid JSON', () => {
    for (const text of ['{}', '[]', '{"a": [1, -2.5e3, true, false, null, "x\\"\\u00e9\\n"]}', ' \n{ "a" : { } }\n']) {
      expect(() => void JSON.parse(text)).not.toThrow();
      expect(findJsonSyntaxError(text), text).toBeNull();
    }
  });

  it.each([
    ['', 1, 1, 'the file is empty'],
    ['{\n  "a": 1,\n}', 3, 1, "trailing comma before '}'"],
    ['{\n  "a": 1\n  "b": 2\n}', 3, 3, "expected ',' or '}', found character '\"'"],
    ['{ a: 1 }', 1, 3, "expected a key in double quotes, found character 'a'"],
    ["{ \"a\": 'x' }", 1, 8, 'strings must be in double quotes'],
    ['{ "a": "open\n}', 1, 13, 'line break or control character inside a string (unclosed quote?)'],
    ['{ "a": "open', 1, 8, 'string without its closing quote'],
    ['[1, 2', 1, 6, "expected ',' or ']', found end of file"],
    ['{ "a": 01 }', 1, 9, "expected ',' or '}', found character '1'"],
    ['{ "a": 1 } x', 1, 12, "unexpected character 'x' after the end of the JSON value"],
    ['{ "a": tru }', 1, 8, "expected a value, found character 't'"],
  ])('locates %j', (text, line, column, message) => {
    expect(() => void JSON.parse(text)).toThrow();
    expect(findJsonSyntaxError(text)).toEqual({ line, column, message });
  });
});
