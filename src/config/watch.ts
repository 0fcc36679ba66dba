import { lstatSync, readlinkSync, realpathSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';

/**
 * Tells the daemon when one of the files its config comes from changed: the config
 * file and the token file (`service.tokenFile`). The folders are watched, not the
 * files: editors, `install` and `cp` to a temporary name replace a file by renaming a
 * new one over it, which a watch on the old file never sees. Changes are debounced
 * (an editor writes several times per save).
 *
 * A file that is a symbolic link (a token linked in from a mounted secrets folder) is
 * followed: the folder of each link on the way and the folder of the final target are
 * watched too, so a changed target or a re-pointed link is noticed without SIGHUP. The
 * links are resolved again after each change (the chain may point elsewhere now).
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

/** How many links are followed from one file (as the kernel's own limit, roughly). */
const MAX_LINKS = 8;

/**
 * `file` and every path its symbolic links lead through, ending with the real file. Only
 * lstat, readlink and realpath: none of them opens the file, so a FIFO cannot block here.
 */
function linkChain(file: string): string[] {
  const chain = [file];
  let current = file;
  for (let i = 0; i < MAX_LINKS; i++) {
    try {
      if (!lstatSync(current).isSymbolicLink()) break;
      current = path.resolve(path.dirname(current), readlinkSync(current));
    } catch {
      break;
    }
    chain.push(current);
  }
  try {
    // A link in a folder component (`..data/token`, as Kubernetes mounts secrets).
    const real = realpathSync(file);
    if (!chain.includes(real)) chain.push(real);
  } catch {
    // Not there (yet): its folder is watched for it to appear.
  }
  return chain;
}

interface WatchedFolder {
  watcher: FSWatcher;
  /** A name in this folder, and the configured files a change to it stands for. */
  names: Map<string, Set<string>>;
}

export class ConfigFilesWatcher {
  private readonly watchers = new Map<string, WatchedFolder>();
  private timer: NodeJS.Timeout | undefined;
  private readonly changedFiles = new Set<string>();
  private files: readonly (string | null | undefined)[] = [];
  private closed = false;

  constructor(private readonly options: ConfigFilesWatcherOptions) {}

  /** Watches exactly these files from now on (the token file may move with a config change). */
  watch(files: readonly (string | null | undefined)[]): void {
    if (this.closed) return;
    this.files = files;
    const wanted = new Map<string, Map<string, Set<string>>>();
    for (const file of files) {
      if (!file) continue;
      const full = path.resolve(file);
      for (const step of linkChain(full)) {
        const dir = path.dirname(step);
        const names = wanted.get(dir) ?? new Map<string, Set<string>>();
        const stands = names.get(path.basename(step)) ?? new Set<string>();
        stands.add(full);
        names.set(path.basename(step), stands);
        wanted.set(dir, names);
      }
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
      const first = () => [...[...names.values()][0]][0];
      try {
        const entry: WatchedFolder = { names, watcher: undefined as unknown as FSWatcher };
        entry.watcher = watch(dir, { persistent: false }, (_event, name) => {
          if (name === null) {
            for (const stands of entry.names.values()) for (const file of stands) this.changed(file);
          } else {
            for (const file of entry.names.get(path.basename(name)) ?? []) this.changed(file);
          }
        });
        entry.watcher.on('error', (err) => this.options.onError(first(), err));
        this.watchers.set(dir, entry);
      } catch (err) {
        this.options.onError(first(), err);
      }
    }
  }

  close(): void {
    this.closed = true;
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
      // A link may lead elsewhere now: follow it again before reporting.
      this.watch(this.files);
      this.options.onChange(files);
    }, this.options.debounceMs ?? 500);
  }
}
