export class Problems {
    file;
    items = [];
    more = 0;
    constructor(file) {
        this.file = file;
    }
    add(message) {
        if (this.items.length < MAX_PROBLEMS)
            this.items.push(message);
        else
            this.more++;
    }
    remove(message) {
        const at = this.items.indexOf(message);
        if (at >= 0)
            this.items.splice(at, 1);
    }
    list() {
        return this.more === 0 ? [...this.items] : [...this.items, `${this.file}: ${this.more} more problems not listed`];
    }
}
const MAX_PROBLEMS = 100;
