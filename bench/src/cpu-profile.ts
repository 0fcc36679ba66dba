import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the agent's main thread spends a recording, from a `node --cpu-prof` profile
 * (`--cpu-profile DIR`). Each sample's time goes to the first bucket whose test matches its
 * stack (leaf first), so the buckets do not overlap; the shares of the busy samples (all but
 * `(idle)`) are then applied to the node process's CPU per recording. Under a CPU quota a
 * CPU-bound stretch takes 1/quota times its CPU in wall time, so the time blocked in an fsync
 * (off the CPU) weighs little in these shares.
 */
interface ProfileNode {
  id: number;
  /** lineNumber and columnNumber are 0-based (V8's). */
  callFrame: { functionName: string; url: string; lineNumber?: number; columnNumber?: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** A stack as `url:function` frames, leaf first; `agent` marks the agent's own code (dist/). */
interface Stack {
  frames: string[];
  text: string;
  leaf: string;
  agent: string[];
}

const FS_CALLS = new Set(['read', 'lstat', 'open', 'close', 'fstat', 'stat', 'openFileHandle', 'statfs', 'mkdir', 'link', 'readdir', 'fsync', 'unlink', 'rename', 'writeBuffer', 'writev']);

/** The buckets, in the order tested. Named by what a recording pays for. */
const BUCKETS: readonly [string, (s: Stack) => boolean][] = [
  ['garbage collection', (s) => s.leaf === '(garbage collector)'],
  ['meta writes (setMeta)', (s) => s.text.includes('meta.js:setMeta')],
  ["uploader's commits: claims and outcomes", (s) => /upload-queue-sqlite\.js|group-commit\.js|claim-(detections|recordings)\.js/.test(s.text)],
  ['ingest: ingested-files marks', (s) => s.text.includes('markFileDone')],
  ['ingest: enqueue (recording and detections)', (s) => /enqueueWithPolicy|\/policy\//.test(s.text)],
  ['encode stage: queue claims', (s) => /\/queue\/encoding\.js/.test(s.text)],
  ['FLAC: the flac program (spawn, wait)', (s) => /flac-cli\.js|child_process/.test(s.text)],
  ['FLAC: in-process encoding', (s) => /\/audio\/(libflac|flac-encode|pcm)|wasm/.test(s.text)],
  ['file system calls (open, stat, read, close)', (s) => s.agent.length > 0 && FS_CALLS.has(s.leaf)],
  ['upload: request bodies and HTTP', (s) => /\/api\/|node:_http|node:https/.test(s.text)],
  ['module loading (start-up)', (s) => /modules\/(esm|cjs)|compileForInternalLoader/.test(s.text)],
  ['logging', (s) => /\/log\/|pino/.test(s.text)],
  ['config, zod, luxon', (s) => /zod|luxon|\/config\//.test(s.text)],
  ['watcher and pairing', (s) => /pairing\.js|watcher\.js/.test(s.text)],
  ['other queue statements', (s) => /\/queue\/|better-sqlite3/.test(s.text)],
  ['other agent code', (s) => s.agent.length > 0],
];

export interface ProfileBreakdown {
  file: string;
  /** Busy samples, ms of the profile's clock. */
  busyMs: number;
  /** Bucket -> share of the busy samples (0..1). */
  shares: Record<string, number>;
  /** The innermost agent functions by share (self time of everything under them). */
  topFunctions: { fn: string; share: number }[];
}

/** The newest `.cpuprofile` in `dir`, summarised; `agentRoot` is the folder of the agent's build (dist/). */
export function summariseProfile(dir: string, agentRoot: string): ProfileBreakdown {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).sort();
  if (files.length === 0) throw new Error(`no .cpuprofile in ${dir}`);
  const file = path.join(dir, files[files.length - 1]);
  return summarise(JSON.parse(readFileSync(file, 'utf8')) as Profile, file, agentRoot);
}

/**
 * The URL of the module a frame's code comes from: in a chunk of the bundle the CLI runs
 * (`dist/bundle/`, scripts/bundle.mjs), the tsc module under dist/ the chunk's source map
 * names for the frame's position, so the buckets and the functions name modules, not chunks.
 */
function moduleUrlOf(frame: ProfileNode['callFrame'], maps: Map<string, SourceMap | null>): string {
  const { url, lineNumber, columnNumber } = frame;
  if (!url.includes('/dist/bundle/') || lineNumber === undefined || lineNumber < 0) return url;
  let map = maps.get(url);
  if (map === undefined) {
    const mapFile = `${fileURLToPath(url)}.map`;
    map = existsSync(mapFile) ? new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8')) as ConstructorParameters<typeof SourceMap>[0]) : null;
    maps.set(url, map);
  }
  // An empty object where no mapping covers the position; a mapping of another line is the
  // nearest before it (the chunk's own code between modules), not this frame's.
  const entry = map?.findEntry(lineNumber, columnNumber ?? 0);
  return entry && 'originalSource' in entry && entry.generatedLine === lineNumber ? new URL(entry.originalSource, url).href : url;
}

export function summarise(profile: Profile, file: string, agentRoot: string): ProfileBreakdown {
  const maps = new Map<string, SourceMap | null>();
  for (const n of profile.nodes) n.callFrame = { ...n.callFrame, url: moduleUrlOf(n.callFrame, maps) };
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const agentPrefix = `file://${agentRoot}${path.sep}`;
  const buckets = new Map<string, number>();
  const functions = new Map<string, number>();
  let busy = 0;
  for (const [id, us] of self) {
    const frames: string[] = [];
    const agent: string[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const n = byId.get(at);
      if (!n) break;
      const { url, functionName } = n.callFrame;
      frames.push(`${url}:${functionName}`);
      if (url.startsWith(agentPrefix) && !url.includes('node_modules')) agent.push(`${url.slice(agentPrefix.length)}:${functionName || '(anonymous)'}`);
    }
    const leaf = byId.get(id)!.callFrame.functionName;
    if (leaf === '(idle)') continue;
    busy += us;
    const stack: Stack = { frames, text: frames.join(' < '), leaf, agent };
    const bucket = BUCKETS.find(([, test]) => test(stack))?.[0] ?? 'other (Node internals)';
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + us);
    if (agent.length > 0) functions.set(agent[0], (functions.get(agent[0]) ?? 0) + us);
  }
  const share = (us: number) => (busy > 0 ? us / busy : 0);
  return {
    file,
    busyMs: busy / 1000,
    shares: Object.fromEntries([...buckets].sort((a, b) => b[1] - a[1]).map(([k, us]) => [k, share(us)])),
    topFunctions: [...functions]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 15)
      .map(([fn, us]) => ({ fn, share: share(us) })),
  };
}
