/**
 * How a promise ended, its value or its error, or `'stalled'` when it is still pending after
 * `guardMs`: for tests of a deadline, where a call without one would otherwise hang the test
 * until vitest's own limit, with a message that says nothing. The guard is far above the
 * deadlines under test (hundreds of ms), so a busy machine never meets it.
 *
 * @example expect(await outcomeWithin(client.postDetection(d))).toBeInstanceOf(OutcomeUnknownError);
 */
export async function outcomeWithin(promise: Promise<unknown>, guardMs = 20_000): Promise<unknown> {
  let guard: NodeJS.Timeout | undefined;
  const stalled = new Promise<'stalled'>((resolve) => (guard = setTimeout(() => resolve('stalled'), guardMs)));
  try {
    return await Promise.race([promise.then((v) => v, (e: unknown) => e), stalled]);
  } finally {
    clearTimeout(guard);
  }
}
