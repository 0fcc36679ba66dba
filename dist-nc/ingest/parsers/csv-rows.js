import { stripBom } from './text.js';
export function splitCsvRecords(input, delimiter = ',', firstLine = 1) {
    if (delimiter.length !== 1 || delimiter === '"' || delimiter === '\n' || delimiter === '\r') {
        throw new Error(`invalid CSV delimiter ${JSON.stringify(delimiter)}`);
    }
    const text = stripBom(input);
    const records = [];
    let fields = [];
    let field = '';
    let line = firstLine;
    let recordLine = firstLine;
    let i = 0;
    const endRecord = () => {
        fields.push(field);
        if (!(fields.length === 1 && fields[0].trim() === ''))
            records.push({ fields, line: recordLine });
        fields = [];
        field = '';
    };
    while (i < text.length) {
        const c = text[i];
        if (c === '"' && field === '') {
            const quoteLine = line;
            i++;
            let closed = false;
            while (i < text.length) {
                const q = text[i];
                if (q === '"') {
                    if (text[i + 1] === '"') {
                        field += '"';
                        i += 2;
                        continue;
                    }
                    i++;
                    closed = true;
                    break;
                }
                if (q === '\n' || (q === '\r' && text[i + 1] !== '\n'))
                    line++;
                field += q;
                i++;
            }
            if (!closed) {
                fields.push(field);
                records.push({ fields, line: recordLine, error: `unterminated quoted field opened on line ${quoteLine}` });
                return records;
            }
            continue;
        }
        if (c === delimiter) {
            fields.push(field);
            field = '';
            i++;
            continue;
        }
        if (c === '\r' || c === '\n') {
            endRecord();
            i += c === '\r' && text[i + 1] === '\n' ? 2 : 1;
            line++;
            recordLine = line;
            continue;
        }
        field += c;
        i++;
    }
    if (field !== '' || fields.length > 0)
        endRecord();
    return records;
}
