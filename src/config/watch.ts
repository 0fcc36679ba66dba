import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';

/**
 * Tells the daemon when one of the files its config comes from changed: the config
 * file and the token file (`service.tokenFile`). The folders are watched, not the
 * files: editors, `install` and `cp` to a temporary name replace a file by renaming a
 * new one over it, which a watch on the old file never sees. Changes are debounced
 * (an editor writes several times per save).
 *
 * A folder that cannot be watched (out of inotify watches) is reported through
 * `onError`; SIGHUP (`systemctl reload`) still reloads by hand.
 */
export interface ConfigFilesWatcherOptions {
  /** The files that changed since the last call (absolute paths). */
  onChange: (files: string[]) => void;
  onError: (file: string, err: unknown) => void;
  /** Default 500 ms. */
  debounceMs?: number;
}

export class ConfigFilesWatcher {
  private readonly watchers = new Map<string, { watcher: FSWatcher; names: Set<string> }>();
  private timer: NodeJS.Timeout | undefined;
  private readonly changedFiles = new Set<string>();

  constructor(private readonly options: ConfigFilesWatcherOptions) {}

  /** Watches exactly these files from now on (the token file may move with a config change). */
  watch(files: readonly (string | null | undefined)[]): void {
    const wanted = new Map<string, Set<string>>();
    for (const file of files) {
      if (!file) continue;
      const full = path.resolve(file);
      const dir = path.dirname(full);
      const names = wanted.get(dir) ?? new Set<string>();
      names.add(path.basename(full));
      wanted.set(dir, names);
    }
    for (const [dir, entry] of this.watchers) {
      if (wanted.has(dir)) continue;
      entry.watcher.close();
      this.watchers.delete(dir);
    }
    for (const [dir, names] of wanted) {
      const existing = this.watchers.get(dir);
      if (existing) {
        existing.names = names;
        continue;
      }
      try {
        const entry = { names, watcher: undefined as unknown as FSWatcher };
        entry.watcher = watch(dir, { persistent: false }, (_event, name) => {
          if (name === null) for (const known of entry.names) this.changed(path.join(dir, known));
          else if (entry.names.has(path.basename(name))) this.changed(path.join(dir, path.basename(name)));
        });
        entry.watcher.on('error', (err) => this.options.onError(path.join(dir, [...entry.names][0]), err));
        this.watchers.set(dir, entry);
      } catch (err) {
        this.options.onError(path.join(dir, [...names][0]), err);
      }
    }
  }

  close(): void {
    clearTimeout(this.timer);
    for (const { watcher } of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }

  private changed(file: string): void {
    this.changedFiles.add(file);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      const files = [...this.changedFiles];
      this.changedFiles.clear();
      this.options.onChange(files);
    }, this.options.debounceMs ?? 500);
  }
}
