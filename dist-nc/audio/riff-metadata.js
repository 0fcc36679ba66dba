const utf8 = new TextDecoder('utf-8', { fatal: true });
export function decodeText(bytes) {
    const nul = bytes.indexOf(0);
    const raw = nul === -1 ? bytes : bytes.subarray(0, nul);
    let text;
    try {
        text = utf8.decode(raw);
    }
    catch {
        text = raw.toString('latin1');
    }
    return text.trim();
}
export function parseListInfo(body) {
    if (body.length < 4 || body.toString('latin1', 0, 4) !== 'INFO')
        return undefined;
    const tags = {};
    let pos = 4;
    while (pos + 8 <= body.length) {
        const id = body.toString('latin1', pos, pos + 4);
        const size = body.readUInt32LE(pos + 4);
        const start = pos + 8;
        const end = Math.min(start + size, body.length);
        const value = decodeText(body.subarray(start, end));
        if (value !== '' && !(id in tags))
            tags[id] = value;
        pos = start + size + (size & 1);
    }
    return tags;
}
export function parseGuano(body) {
    const text = decodeText(body);
    const fields = {};
    for (const line of text.split(/\r?\n/)) {
        const colon = line.indexOf(':');
        if (colon <= 0)
            continue;
        const key = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (key !== '')
            fields[key] = value;
    }
    return fields;
}
export function parseBext(body) {
    if (body.length < 338)
        return undefined;
    return {
        description: decodeText(body.subarray(0, 256)),
        originator: decodeText(body.subarray(256, 288)),
        originationDate: decodeText(body.subarray(320, 330)),
        originationTime: decodeText(body.subarray(330, 338)),
    };
}
