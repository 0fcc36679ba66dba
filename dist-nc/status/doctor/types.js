export function result(id, title, status, detail, hint = null, data) {
    return { id, title, status, detail, hint: status === 'pass' ? null : hint, ...(data ? { data } : {}) };
}
