/** Problems of one file, bounded: a million bad rows must not become a million log lines in memory. */
export class Problems {
  private readonly items: string[] = [];
  private more = 0;

  constructor(private readonly file: string) {}

  add(message: string): void {
    if (this.items.length < MAX_PROBLEMS) this.items.push(message);
    else this.more++;
  }

  remove(message: string): void {
    const at = this.items.indexOf(message);
    if (at >= 0) this.items.splice(at, 1);
  }

  list(): string[] {
    return this.more === 0 ? [...this.items] : [...this.items, `${this.file}: ${this.more} more problems not listed`];
  }
}

const MAX_PROBLEMS = 100;
