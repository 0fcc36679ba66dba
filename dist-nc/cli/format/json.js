export function writeJson(out, value) {
    out.write(`${JSON.stringify(value, null, 2)}\n`);
}
export class JsonArrayWriter {
    out;
    key;
    head;
    #count = 0;
    #open = false;
    constructor(out, key, head = { success: true }) {
        this.out = out;
        this.key = key;
        this.head = head;
    }
    get count() {
        return this.#count;
    }
    push(items) {
        if (!this.#open)
            this.#start();
        for (const item of items) {
            this.out.write(`${this.#count === 0 ? '\n' : ',\n'}    ${JSON.stringify(item)}`);
            this.#count++;
        }
    }
    end(tail = {}) {
        if (!this.#open)
            this.#start();
        const rest = Object.entries(tail)
            .map(([k, v]) => `,\n  ${JSON.stringify(k)}: ${JSON.stringify(v)}`)
            .join('');
        this.out.write(`${this.#count === 0 ? '' : '\n  '}]${rest}\n}\n`);
    }
    #start() {
        this.#open = true;
        const head = Object.entries(this.head)
            .map(([k, v]) => `  ${JSON.stringify(k)}: ${JSON.stringify(v)},\n`)
            .join('');
        this.out.write(`{\n${head}  ${JSON.stringify(this.key)}: [`);
    }
}
