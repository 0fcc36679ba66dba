import { readFile } from 'node:fs/promises';

/**
 * The kernel's per-user limit of inotify watches. The file watcher needs one per watched
 * folder; when a deep analyzer output tree exceeds it, watching fails with ENOSPC and
 * only the periodic rescan finds new files. `doctor` reports it.
 */

export const INOTIFY_MAX_USER_WATCHES_FILE = '/proc/sys/fs/inotify/max_user_watches';

/** The limit, or null where the file is absent or unreadable (not Linux, restricted containers). */
export async function inotifyMaxUserWatches(file: string = INOTIFY_MAX_USER_WATCHES_FILE): Promise<number | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return null;
  }
  const value = text.trim();
  return /^\d+$/.test(value) ? Number(value) : null;
}
