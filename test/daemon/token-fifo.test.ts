import { execFileSync } from 'node:child_process';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { RunningEmulator } from '@station-agent/emulator';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN } from '../helpers/agent-world.js';
import { buildCli, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/paths.js';
import { until } from '../helpers/until.js';
import { startAgentProcess, type AgentProcess } from '../reliability/support/agent-process.js';
import { startService, writeAgentConfig } from '../reliability/support/world.js';

/**
 * A token file replaced by a FIFO (issue 19, item 9). Reading it used to block one of
 * libuv's four file-system threads at each reload: after a few, ingestion stopped,
 * `status` and `queue list` hung, and SIGTERM no longer stopped the daemon. Secret files
 * are read as regular files only (config/secret-files.ts), so nothing waits on the FIFO.
 */
const { dir: root, cleanup } = tempDir('token-fifo-');
let service: RunningEmulator;
let agent: AgentProcess | undefined;

beforeAll(async () => {
  await buildCli();
  service = await startService();
}, 180_000);
afterEach(async () => {
  await agent?.kill('SIGKILL');
  agent = undefined;
});
afterAll(async () => {
  await service?.close();
  cleanup();
});

describe('a token file replaced by a FIFO', () => {
  it('is refused at each reload without blocking: status and queue list answer, SIGTERM stops the daemon', async () => {
    const inputDir = path.join(root, 'input');
    const dataDir = path.join(root, 'data');
    const secrets = path.join(root, 'secrets');
    mkdirSync(inputDir, { recursive: true });
    mkdirSync(secrets, { recursive: true });
    const tokenFile = path.join(secrets, 'token');
    writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
    const configPath = writeAgentConfig(path.join(root, 'config.json'), {
      baseUrl: service.url,
      inputDir,
      dataDir,
      extra: { service: { token: undefined, tokenFile } },
    });
    agent = startAgentProcess(configPath);
    await agent.waitForLine(/station-agent running/, 30_000);

    // A FIFO renamed over the token file: the watcher reloads, then SIGHUPs, more than libuv has threads.
    execFileSync('mkfifo', [`${tokenFile}.fifo`]);
    renameSync(`${tokenFile}.fifo`, tokenFile);
    await agent.waitForLine(/config is invalid.*service\.tokenFile: the file is a FIFO \(named pipe\), not a regular file/, 20_000);
    const a = agent;
    const hangups = () => a.lines.filter((l) => /reload asked \(SIGHUP\) but the config is invalid/.test(l)).length;
    for (let i = 1; i <= 6; i++) {
      a.child.kill('SIGHUP');
      await until(`SIGHUP reload ${i} refused`, () => hangups() === i, 20_000, () => a.lines.slice(-20).join('\n'));
    }

    // The commands an operator reaches for answer (with the reason), instead of hanging.
    const env = { STATION_AGENT_CONFIG: configPath };
    for (const args of [['status'], ['queue', 'list']]) {
      const result = await runCli(args, { env, timeoutMs: 20_000 });
      expect(`${result.stdout}${result.stderr}`).toContain('service.tokenFile: the file is a FIFO (named pipe), not a regular file');
    }

    const exit = await agent.kill('SIGTERM');
    expect(exit).toEqual({ code: 0, signal: null });
    expect(agent.lines.join('\n')).not.toContain(TOKEN);
  }, 90_000);
});
