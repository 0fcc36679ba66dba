/**
 * Whether a process with this pid exists: the daemon lock's holder, a killed agent's
 * scratch files, the daemon `status` reads about. EPERM means it exists but belongs to
 * another user. A pid of 0 or below names a process group for `kill`, never one
 * process, so it is not alive.
 *
 * @example pidAlive(process.pid) // true
 */
export function pidAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
