import { stripBom } from './text.js';
export function parseLines(parser, text) {
    stripBom(text)
        .split(/\r\n|\n|\r/)
        .forEach((t, i) => parser.push(t, i + 1));
    parser.finish();
}
