export {
  TIMEDATECTL_ARGS,
  TIMESYNC_SYNCHRONIZED_FILE,
  clockSyncState,
  runCommand,
  type ClockProbeOptions,
  type ClockSyncState,
  type CommandResult,
  type CommandRunner,
} from './clock.js';
export { diskFree, type DiskSpace } from './disk.js';
export { INOTIFY_MAX_USER_WATCHES_FILE, inotifyMaxUserWatches } from './inotify.js';
export { EARLIEST_PLAUSIBLE_TIME, isPlausibleTimestamp, timeImplausibility } from './plausible-time.js';
