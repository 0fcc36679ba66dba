/**
 * The one poll helper of the tests: a test waits on a condition, never on a fixed sleep
 * (CI runs on a busy two-core machine, where any fixed delay is sometimes too short).
 *
 * Polls `probe` until it returns something other than `undefined`, `null` or `false`, and
 * returns that value; after `timeoutMs` it fails naming `what`, with `describe()` (a log
 * tail, a queue dump) appended when given.
 *
 * @example
 * await until('the backlog uploaded', () => world.counts().detections.uploaded === 3);
 * const pid = await until('agent pid', () => agentPid(agent.pid), 5_000);
 */
export async function until<T>(
  what: string,
  probe: () => T | Promise<T>,
  timeoutMs = 30_000,
  describe?: () => string,
): Promise<Exclude<T, undefined | null | false>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value as Exclude<T, undefined | null | false>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (${timeoutMs} ms)${describe ? `\n${describe()}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Short enough that a test does not idle, long enough that polling costs nothing on two cores. */
const POLL_MS = 50;
