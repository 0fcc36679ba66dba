export const MIN_SECRET_LENGTH = 8;
const read = new Set();
export function rememberSecret(value) {
    if (value && value.length >= MIN_SECRET_LENGTH)
        read.add(value);
}
export function secretsRead() {
    return [...read];
}
