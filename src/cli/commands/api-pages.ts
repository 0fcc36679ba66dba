/**
 * `--all`: follows a listing to its end, one page at a time, so the output streams
 * and memory stays flat however long the listing is.
 *
 * Cursor listings (detections, soundscapes) continue after the last id of a page;
 * the species listing counts pages. A short page is the last one. A cursor that
 * does not move (a service that ignores it) ends the loop instead of repeating
 * the same page forever.
 */

export async function* pagesByCursor<T extends { id: number }>(
  fetchPage: (cursor: number | undefined) => Promise<T[]>,
  limit: number,
  firstCursor?: number,
): AsyncGenerator<T[]> {
  let cursor = firstCursor;
  for (;;) {
    const page = await fetchPage(cursor);
    if (page.length > 0) yield page;
    if (page.length < limit) return;
    const next = page[page.length - 1].id;
    if (next === cursor) return;
    cursor = next;
  }
}

export async function* pagesByNumber<T>(fetchPage: (page: number) => Promise<T[]>, limit: number, firstPage = 1): AsyncGenerator<T[]> {
  for (let n = firstPage; ; n++) {
    const page = await fetchPage(n);
    if (page.length > 0) yield page;
    if (page.length < limit) return;
  }
}
