export function arrayElementLines(text, key) {
    const lines = [];
    let line = 1;
    let depth = 0;
    let lastKey;
    let awaitingValue = false;
    let inTarget = false;
    let expectElement = false;
    const valueStarts = () => {
        if (inTarget && depth === 2 && expectElement) {
            lines.push(line);
            expectElement = false;
        }
    };
    for (let i = 0; i < text.length; i++) {
        const c = text[i];
        if (c === '\n') {
            line++;
        }
        else if (c === '"') {
            valueStarts();
            let s = '';
            for (i++; i < text.length && text[i] !== '"'; i++) {
                if (text[i] === '\\')
                    i++;
                s += text[i];
            }
            if (depth === 1) {
                if (awaitingValue)
                    awaitingValue = false;
                else
                    lastKey = s;
            }
        }
        else if (c === '[' || c === '{') {
            if (depth === 1 && awaitingValue && c === '[') {
                inTarget = true;
                expectElement = true;
            }
            else {
                valueStarts();
            }
            awaitingValue = false;
            depth++;
        }
        else if (c === ']' || c === '}') {
            depth--;
            if (depth === 1)
                inTarget = false;
        }
        else if (c === ',') {
            if (inTarget && depth === 2)
                expectElement = true;
            if (depth === 1)
                lastKey = undefined;
        }
        else if (c === ':') {
            if (depth === 1 && lastKey === key)
                awaitingValue = true;
        }
        else if (c !== ' ' && c !== '\t' && c !== '\r') {
            valueStarts();
            if (depth === 1)
                awaitingValue = false;
        }
    }
    return lines;
}
