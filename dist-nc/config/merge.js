export function isPlainObject(value) {
    if (value === null || typeof value !== 'object' || Array.isArray(value))
        return false;
    const proto = Object.getPrototypeOf(value);
    return proto === Object.prototype || proto === null;
}
export function getAt(root, path) {
    let current = root;
    for (const key of path) {
        if (!isPlainObject(current))
            return undefined;
        current = current[key];
    }
    return current;
}
export function setAt(root, path, value) {
    let current = root;
    for (const key of path.slice(0, -1)) {
        const next = current[key];
        if (!isPlainObject(next))
            current[key] = {};
        current = current[key];
    }
    current[path[path.length - 1]] = value;
}
export function deleteAt(root, path) {
    const parent = getAt(root, path.slice(0, -1));
    if (isPlainObject(parent))
        delete parent[path[path.length - 1]];
}
export function deepMerge(base, over) {
    if (over === undefined)
        return base;
    if (!isPlainObject(over) || !isPlainObject(base))
        return isPlainObject(over) ? deepMerge({}, over) : over;
    const out = { ...base };
    for (const [key, value] of Object.entries(over)) {
        if (value === undefined)
            continue;
        out[key] = deepMerge(base[key], value);
    }
    return out;
}
export function leafPaths(root, prefix = []) {
    if (!isPlainObject(root))
        return prefix.length ? [[...prefix]] : [];
    const out = [];
    for (const [key, value] of Object.entries(root)) {
        if (value === undefined)
            continue;
        out.push(...leafPaths(value, [...prefix, key]));
    }
    return out;
}
