class Stop extends Error {
    offset;
    reason;
    constructor(offset, reason) {
        super(reason);
        this.offset = offset;
        this.reason = reason;
    }
}
export function findJsonSyntaxError(text) {
    const scanner = new Scanner(text);
    try {
        scanner.document();
        return null;
    }
    catch (err) {
        if (!(err instanceof Stop))
            throw err;
        return { ...lineAndColumn(text, err.offset), message: err.reason };
    }
}
export function lineAndColumn(text, offset) {
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
    text;
    i = 0;
    constructor(text) {
        this.text = text;
    }
    document() {
        this.space();
        if (this.i >= this.text.length)
            throw new Stop(this.i, 'the file is empty');
        this.value();
        this.space();
        if (this.i < this.text.length)
            throw new Stop(this.i, `unexpected ${this.here()} after the end of the JSON value`);
    }
    here() {
        const c = this.text[this.i];
        if (c === undefined)
            return 'end of file';
        return /^[\x21-\x7e]$/.test(c) ? `character '${c}'` : `character U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
    }
    space() {
        while (this.i < this.text.length && ' \t\n\r'.includes(this.text[this.i]))
            this.i++;
    }
    value() {
        const c = this.text[this.i];
        if (c === '{')
            return this.object();
        if (c === '[')
            return this.array();
        if (c === '"')
            return this.string();
        if (c === '-' || (c !== undefined && c >= '0' && c <= '9'))
            return this.number();
        for (const word of ['true', 'false', 'null']) {
            if (this.text.startsWith(word, this.i)) {
                this.i += word.length;
                return;
            }
        }
        if (c === "'")
            throw new Stop(this.i, 'strings must be in double quotes');
        throw new Stop(this.i, `expected a value, found ${this.here()}`);
    }
    object() {
        this.members('}', () => {
            if (this.text[this.i] !== '"')
                throw new Stop(this.i, `expected a key in double quotes, found ${this.here()}`);
            this.string();
            this.space();
            if (this.text[this.i] !== ':')
                throw new Stop(this.i, `expected ':' after the key, found ${this.here()}`);
            this.i++;
            this.space();
            this.value();
        });
    }
    array() {
        this.members(']', () => this.value());
    }
    members(close, member) {
        this.i++;
        this.space();
        if (this.text[this.i] === close) {
            this.i++;
            return;
        }
        for (;;) {
            this.space();
            if (this.text[this.i] === close)
                throw new Stop(this.i, `trailing comma before '${close}'`);
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
    string() {
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
                if (e === undefined || !'"\\/bfnrt'.includes(e))
                    throw new Stop(this.i, 'invalid escape in a string');
                this.i += 2;
                continue;
            }
            if (c < ' ')
                throw new Stop(this.i, 'line break or control character inside a string (unclosed quote?)');
            this.i++;
        }
        throw new Stop(start, 'string without its closing quote');
    }
    number() {
        const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(this.text.slice(this.i));
        if (!match || match[0] === '-')
            throw new Stop(this.i, 'invalid number');
        this.i += match[0].length;
    }
}
