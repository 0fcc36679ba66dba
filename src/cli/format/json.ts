/**
 * `--json` output: one JSON document on stdout. Keys are stable and only ever
 * added, never renamed, so scripts keep working across versions.
 */

export interface TextSink {
  write(chunk: string): unknown;
}

export function writeJson(out: TextSink, value: unknown): void {
  out.write(`${JSON.stringify(value, null, 2)}\n`);
}

/**
 * A JSON object with one array written as it comes, page by page, so `--all`
 * streams a listing of any length in constant memory and the result is still one
 * valid document, shaped like a single page: `{"success":true,"detections":[...]}`.
 */
export class JsonArrayWriter {
  #count = 0;
  #open = false;

  constructor(
    private readonly out: TextSink,
    private readonly key: string,
    private readonly head: Record<string, unknown> = { success: true },
  ) {}

  get count(): number {
    return this.#count;
  }

  push(items: readonly unknown[]): void {
    if (!this.#open) this.#start();
    for (const item of items) {
      this.out.write(`${this.#count === 0 ? '\n' : ',\n'}    ${JSON.stringify(item)}`);
      this.#count++;
    }
  }

  /** Closes the array and the object; `tail` adds keys after the array (e.g. a page count). */
  end(tail: Record<string, unknown> = {}): void {
    if (!this.#open) this.#start();
    const rest = Object.entries(tail)
      .map(([k, v]) => `,\n  ${JSON.stringify(k)}: ${JSON.stringify(v)}`)
      .join('');
    this.out.write(`${this.#count === 0 ? '' : '\n  '}]${rest}\n}\n`);
  }

  #start(): void {
    this.#open = true;
    const head = Object.entries(this.head)
      .map(([k, v]) => `  ${JSON.stringify(k)}: ${JSON.stringify(v)},\n`)
      .join('');
    this.out.write(`{\n${head}  ${JSON.stringify(this.key)}: [`);
  }
}
