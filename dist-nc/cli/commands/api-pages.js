export async function* pagesByCursor(fetchPage, limit, firstCursor) {
    let cursor = firstCursor;
    for (;;) {
        const page = await fetchPage(cursor);
        if (page.length > 0)
            yield page;
        if (page.length < limit)
            return;
        const next = page[page.length - 1].id;
        if (next === cursor)
            return;
        cursor = next;
    }
}
export async function* pagesByNumber(fetchPage, limit, firstPage = 1) {
    for (let n = firstPage;; n++) {
        const page = await fetchPage(n);
        if (page.length > 0)
            yield page;
        if (page.length < limit)
            return;
    }
}
