/**
 * Where a JSON text goes wrong, as line and column. `JSON.parse`'s own messages cannot
 * be used: they do not always carry a position, and they quote a stretch of the input,
 * which in a config file may be the token. This scanner follows the JSON grammar
 * only far enough to find the first error, and describes it without echoing content.
 */

export interface JsonSyntaxError {
  line: number;
  column: number;
  message: string;
}

class Stop extends Error {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {
    super(reason);
  }
}

export function findJsonSyntaxError(text: string): JsonSyntaxError | null {
  const scanner = new Scanner(text);
  try {
    scanner.document();
    return null;
  } catch (err) {
    if (!(err instanceof Stop)) throw err;
    return { ...lineAndColumn(text, err.offset), message: err.reason };
  }
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

class Scanner {
  private i = 0;

  constructor(private readonly text: string) {}

  document(): void {
    this.space();
    if (this.i >= this.text.length) throw new Stop(this.i, 'the file is empty');
    this.value();
    this.space();
    if (this.i < this.text.length) throw new Stop(this.i, `unexpected ${this.here()} after the end of the JSON value`);
  }

  private here(): string {
    const c = this.text[this.i];
    if (c === undefined) return 'end of file';
    // One printable character is safe to show; anything else by its code.
    return /^[\x21-\x7e]$/.test(c) ? `character '${c}'` : `character U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  }

  private space(): void {
    while (this.i < this.text.length && ' \t\n\r'.includes(this.text[this.i])) this.i++;
  }

  private value(): void {
    const c = this.text[this.i];
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
    for (const word of ['true', 'false', 'null']) {
      if (this.text.startsWith(word, this.i)) {
        this.i += word.length;
        return;
      }
    }
    if (c === "'") throw new Stop(this.i, 'strings must be in double quotes');
    throw new Stop(this.i, `expected a value, found ${this.here()}`);
  }

  private object(): void {
    this.members('}', () => {
      if (this.text[this.i] !== '"') throw new Stop(this.i, `expected a key in double quotes, found ${this.here()}`);
      this.string();
      this.space();
      if (this.text[this.i] !== ':') throw new Stop(this.i, `expected ':' after the key, found ${this.here()}`);
      this.i++;
      this.space();
      this.value();
    });
  }

  private array(): void {
    this.members(']', () => this.value());
  }

  /** The members of an object or array, from its opening bracket to `close`: one `member()` each, comma-separated. */
  private members(close: '}' | ']', member: () => void): void {
    this.i++;
    this.space();
    if (this.text[this.i] === close) {
      this.i++;
      return;
    }
    for (;;) {
      this.space();
      if (this.text[this.i] === close) throw new Stop(this.i, `trailing comma before '${close}'`);
      member();
      this.space();
      const c = this.text[this.i];
      if (c === ',') {
        this.i++;
        continue;
      }
      if (c === close) {
        this.i++;
        return;
      }
      throw new Stop(this.i, `expected ',' or '${close}', found ${this.here()}`);
    }
  }

  private string(): void {
    const start = this.i;
    this.i++;
    while (this.i < this.text.length) {
      const c = this.text[this.i];
      if (c === '"') {
        this.i++;
        return;
      }
      if (c === '\\') {
        const e = this.text[this.i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(this.text.slice(this.i + 2, this.i + 6))) {
            throw new Stop(this.i, 'invalid \\u escape in a string');
          }
          this.i += 6;
          continue;
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e)) throw new Stop(this.i, 'invalid escape in a string');
        this.i += 2;
        continue;
      }
      if (c < ' ') throw new Stop(this.i, 'line break or control character inside a string (unclosed quote?)');
      this.i++;
    }
    throw new Stop(start, 'string without its closing quote');
  }

  private number(): void {
    const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(this.text.slice(this.i));
    if (!match || match[0] === '-') throw new Stop(this.i, 'invalid number');
    this.i += match[0].length;
  }
}
