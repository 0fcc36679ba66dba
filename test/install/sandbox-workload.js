/* global process, console, fetch */
// What the agent does with the operating system, in one process: run by
// syscall-filter.test.ts under a seccomp filter built from the unit's SystemCallFilter=
// and RestrictAddressFamilies=, and with /proc mounted as ProcSubset=pid gives it.
// Prints one line per check; exits 0 only when every check passed.
// Usage: node sandbox-workload.js <writable temp dir> <repo root>
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { once } from 'node:events';
import { lookup } from 'node:dns/promises';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const [tempDir, repoRoot] = process.argv.slice(2);
if (!tempDir || !repoRoot) {
  console.error('usage: node sandbox-workload.js <temp dir> <repo root>');
  process.exit(2);
}
const require = createRequire(path.join(repoRoot, 'package.json'));

const checks = {
  async sqlite() {
    // The queue: better-sqlite3's native addon, WAL, synchronous=FULL, fsync.
    const Database = require('better-sqlite3');
    const db = new Database(path.join(tempDir, 'queue.db'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
    db.prepare('INSERT INTO t (v) VALUES (?)').run('x');
    const row = db.prepare('SELECT count(*) AS n FROM t').get();
    db.close();
    if (row.n !== 1) throw new Error(`expected 1 row, got ${row.n}`);
  },

  async watch() {
    // The input folder watcher: inotify.
    const dir = fs.mkdtempSync(path.join(tempDir, 'watch-'));
    const watcher = fs.watch(dir);
    const seen = once(watcher, 'change');
    fs.writeFileSync(path.join(dir, 'a.wav'), 'x');
    await seen;
    watcher.close();
  },

  async http() {
    // Uploads and /healthz: a TCP server and a client resolving "localhost" through
    // getaddrinfo (which opens a netlink socket for AI_ADDRCONFIG when it may).
    const server = http.createServer((_req, res) => res.end('ok'));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address();
    try {
      const res = await fetch(`http://localhost:${port}/healthz`);
      const body = await res.text();
      if (body !== 'ok') throw new Error(`unexpected body ${body}`);
    } finally {
      server.close();
    }
    await lookup('localhost');
  },

  async daemonLock() {
    // One daemon per dataDir (src/system/daemon-lock.ts): util-linux's flock program takes
    // flock(2) on the dataDir folder's descriptor it inherits; the lock stays with ours.
    const dataDir = fs.mkdtempSync(path.join(tempDir, 'data-'));
    const folder = fs.openSync(dataDir, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
    try {
      const take = spawnSync('flock', ['--exclusive', '--nonblock', '--conflict-exit-code', '75', '3'], { stdio: ['ignore', 'ignore', 'pipe', folder], encoding: 'utf8' });
      if (take.status !== 0) throw new Error(`flock on the inherited folder: ${take.status ?? take.error?.message} ${take.stderr ?? ''}`);
      const again = spawnSync('flock', ['--exclusive', '--nonblock', '--conflict-exit-code', '75', dataDir, 'true'], { encoding: 'utf8' });
      if (again.status !== 75) throw new Error(`the folder's lock did not hold: a second flock exited ${again.status} ${again.stderr}`);
      // A refused start names the holder from the folder it keeps open (/proc/<pid>/fd, under ProcSubset=pid).
      const held = fs.readdirSync(`/proc/${process.pid}/fd`).some((fd) => {
        try {
          return fs.statSync(`/proc/${process.pid}/fd/${fd}`).ino === fs.statSync(dataDir).ino;
        } catch {
          return false;
        }
      });
      if (!held) throw new Error('the folder is not among /proc/<pid>/fd');
    } finally {
      fs.closeSync(folder);
    }
    // The input folder's lock: a unix socket bound in the abstract namespace (AF_UNIX, bind,
    // listen, connect), answering with its PID.
    const name = `\0station-agent-sandbox:${process.pid}`;
    const server = net.createServer((peer) => peer.end(`${process.pid}\n`));
    server.listen(name);
    await once(server, 'listening');
    try {
      const peer = net.createConnection(name);
      let text = '';
      peer.setEncoding('utf8');
      peer.on('data', (chunk) => (text += chunk));
      await once(peer, 'end');
      if (text !== `${process.pid}\n`) throw new Error(`unexpected answer ${JSON.stringify(text)}`);
    } finally {
      server.close();
    }
  },

  async flacInWorker() {
    // The FLAC encoder: WebAssembly (JIT, writable-then-executable memory) in a worker thread.
    const worker = new Worker(
      `
      const { parentPort, workerData } = require('node:worker_threads');
      const { createRequire } = require('node:module');
      // Without fetch, the emscripten loader reads the .wasm file from disk.
      delete globalThis.fetch;
      const Flac = createRequire(workerData)('libflacjs')('min.wasm');
      const encode = () => {
        const enc = Flac.create_libflac_encoder(48000, 1, 16, 5, 0, false);
        let bytes = 0;
        Flac.init_encoder_stream(enc, (data) => { bytes += data.length; });
        const samples = new Int32Array(4800).map((_, i) => Math.round(1000 * Math.sin(i / 10)));
        Flac.FLAC__stream_encoder_process_interleaved(enc, samples, samples.length);
        Flac.FLAC__stream_encoder_finish(enc);
        Flac.FLAC__stream_encoder_delete(enc);
        parentPort.postMessage(bytes);
      };
      if (Flac.isReady()) encode(); else Flac.on('ready', encode);
      `,
      { eval: true, workerData: path.join(repoRoot, 'package.json') },
    );
    const [bytes] = await once(worker, 'message');
    await worker.terminate();
    if (!(bytes > 0)) throw new Error('the encoder wrote nothing');
  },

  async flacProgram() {
    // The native FLAC encoder (upload.flacEncoder auto): a child process, under the same
    // filter (seccomp is inherited). Where flac is not installed there is nothing to run.
    if (spawnSync('flac', ['--version']).status !== 0) return;
    const src = path.join(repoRoot, '..', 'shared', 'fixtures', 'real', 'birdnet-analyzer_ea464544_2022-03-02', 'soundscape.wav');
    const wav = path.join(tempDir, 'soundscape.wav');
    // Read and written, not fs.copyFileSync: on Node 26 libuv's copyfile calls fchown(2), which
    // the units' filter (~@privileged, which holds @chown) forbids; the agent never copies that way.
    fs.writeFileSync(wav, fs.readFileSync(src));
    const out = spawnSync('flac', ['--silent', '--force', '-5', '-o', `${wav}.flac`, wav], { encoding: 'utf8' });
    if (out.status !== 0) throw new Error(`flac exited ${out.status} (${out.signal ?? ''}): ${out.stderr}`);
    if (fs.readFileSync(`${wav}.flac`).toString('latin1', 0, 4) !== 'fLaC') throw new Error('flac wrote no FLAC');
  },

  async system() {
    // Start-up and metrics: randomness, memory and CPU counts, /proc/self.
    randomBytes(32);
    if (!(os.totalmem() > 0)) throw new Error('os.totalmem() is 0');
    if (!(os.availableParallelism() > 0)) throw new Error('os.availableParallelism() is 0');
    fs.readFileSync('/proc/self/status', 'utf8');
    process.memoryUsage();
  },
};

let failed = 0;
for (const [name, check] of Object.entries(checks)) {
  try {
    await check();
    console.log(`ok ${name}`);
  } catch (err) {
    failed += 1;
    console.log(`FAILED ${name}: ${err instanceof Error ? err.stack : String(err)}`);
  }
}
console.log(failed === 0 ? 'workload: all checks passed' : `workload: ${failed} check(s) failed`);
process.exit(failed === 0 ? 0 : 1);
