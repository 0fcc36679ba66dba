import { readFile } from 'node:fs/promises';
export const INOTIFY_MAX_USER_WATCHES_FILE = '/proc/sys/fs/inotify/max_user_watches';
export async function inotifyMaxUserWatches(file = INOTIFY_MAX_USER_WATCHES_FILE) {
    let text;
    try {
        text = await readFile(file, 'utf8');
    }
    catch {
        return null;
    }
    const value = text.trim();
    return /^\d+$/.test(value) ? Number(value) : null;
}
