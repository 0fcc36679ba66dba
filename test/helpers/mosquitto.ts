import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { connect, connectAsync, type IClientOptions, type MqttClient } from 'mqtt';
import { tempDir } from './paths.js';
import { until } from './until.js';

/**
 * A real Mosquitto broker for tests: its own process on a free port of 127.0.0.1, a
 * temp config (anonymous, or one user from `mosquitto_passwd`), no persistence.
 * Tests that need it call {@link requireMosquitto}: on a machine without mosquitto
 * they are skipped, except in CI (`CI` set), where its absence fails the run.
 */
export const MOSQUITTO = findMosquitto();

function findMosquitto(): string | null {
  for (const candidate of ['mosquitto', '/usr/sbin/mosquitto', '/usr/local/sbin/mosquitto']) {
    const r = spawnSync(candidate, ['-h'], { stdio: 'ignore' });
    if (!r.error) return candidate;
  }
  return null;
}

/** True when the broker can run here; throws in CI when it cannot (`.ci/run` installs it). */
export function requireMosquitto(): boolean {
  if (MOSQUITTO) return true;
  if (process.env.CI) throw new Error('mosquitto is not installed, and CI must run the MQTT tests (apt-get install -y mosquitto)');
  return false;
}

export interface Broker {
  port: number;
  url: string;
  /** Starts (again) on the same port. */
  start(): Promise<void>;
  stop(): Promise<void>;
  close(): Promise<void>;
}

export interface BrokerOptions {
  /** One user with this password; otherwise anonymous access. */
  user?: { name: string; password: string };
  port?: number;
  /** Keep sessions and queued messages across a stop and start (saved at shutdown). */
  persistent?: boolean;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export async function createBroker(options: BrokerOptions = {}): Promise<Broker> {
  if (!MOSQUITTO) throw new Error('mosquitto is not installed');
  const { dir, cleanup } = tempDir('mosquitto-');
  const port = options.port ?? (await freePort());
  const lines = [`listener ${port} 127.0.0.1`, 'log_dest stderr', 'log_type error', 'log_type warning', 'max_queued_messages 100000'];
  lines.push(...(options.persistent ? ['persistence true', `persistence_location ${dir}/`] : ['persistence false']));
  // As root, mosquitto drops to the `mosquitto` user, which cannot read our temp files.
  if (process.getuid?.() === 0) lines.push('user root');
  if (options.user) {
    const passwords = path.join(dir, 'passwords');
    writeFileSync(passwords, '', { mode: 0o600 });
    execFileSync('mosquitto_passwd', ['-b', passwords, options.user.name, options.user.password], { stdio: 'ignore' });
    lines.push('allow_anonymous false', `password_file ${passwords}`);
  } else {
    lines.push('allow_anonymous true');
  }
  const conf = path.join(dir, 'mosquitto.conf');
  writeFileSync(conf, `${lines.join('\n')}\n`);
  let child: ChildProcess | null = null;

  const broker: Broker = {
    port,
    url: `mqtt://127.0.0.1:${port}`,
    async start() {
      if (child) return;
      const proc = spawn(MOSQUITTO, ['-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
      child = proc;
      let stderr = '';
      proc.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
      // Ready when it accepts a connection.
      await until(
        `mosquitto accepting connections on port ${port}`,
        async () => {
          if (proc.exitCode !== null) throw new Error(`mosquitto exited (${proc.exitCode}): ${stderr}`);
          try {
            const probe = await connectAsync(broker.url, { reconnectPeriod: 0, connectTimeout: 1_000, ...(options.user ? { username: options.user.name, password: options.user.password } : {}) }, false);
            await probe.endAsync();
            return true;
          } catch {
            return false;
          }
        },
        30_000,
        () => stderr,
      );
    },
    async stop() {
      const proc = child;
      if (!proc) return;
      child = null;
      if (proc.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        proc.once('exit', () => resolve());
        proc.kill('SIGTERM');
      });
    },
    async close() {
      await broker.stop();
      cleanup();
    },
  };
  return broker;
}

/** Every message received on `topics`, in arrival order (retained ones flagged). */
export interface Subscriber {
  client: MqttClient;
  messages: { topic: string; payload: string; retain: boolean }[];
  /** Waits until `predicate` holds for the messages so far. */
  waitFor(predicate: (messages: Subscriber['messages']) => boolean, what: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A real client subscribed to `topics` at QoS 1. With `options.clientId` and
 * `clean: false` the broker keeps its session (and queues its messages) while it is away.
 */
export async function subscribe(url: string, topics: string[], options: IClientOptions = {}): Promise<Subscriber> {
  // connect(), not connectAsync(): the handler must be in place before queued messages arrive with the CONNACK.
  const client = connect(url, { reconnectPeriod: 0, clientId: `test-sub-${process.pid}-${Math.random().toString(16).slice(2)}`, ...options });
  const messages: Subscriber['messages'] = [];
  client.on('message', (topic, payload, packet) => messages.push({ topic, payload: payload.toString('utf8'), retain: packet.retain }));
  await new Promise<void>((resolve, reject) => {
    client.once('connect', () => resolve());
    client.once('error', reject);
  });
  if (topics.length > 0) await client.subscribeAsync(topics, { qos: 1 });
  return {
    client,
    messages,
    async waitFor(predicate, what, timeoutMs = 30_000) {
      await until(what, () => predicate(messages), timeoutMs, () => `got ${messages.length} messages: ${JSON.stringify(messages.slice(-5))}`);
    },
    async close() {
      await client.endAsync(true);
    },
  };
}
