import path from 'node:path';
import type { BenchOptions } from './options.js';
import { writeAgentConfig } from './agent-config.js';
import { createMemoryGroup } from './cgroup.js';
import { CLI_MAIN, cpuSeconds, formatMemory, goneReason, memoryDetail, procMemoryKb, sleep, split, startNodeIn, TURBOFAN_ON } from './proc.js';
import { figure, type Figure } from './report.js';
import { measureSteady } from './steady.js';
import { startCountingService } from './stored-detections.js';
import { unitEnvironment, unitMemoryMaxBytes } from './unit-options.js';

/**
 * Idle: the agent as a station runs it most of the time. `station-agent run` with
 * the production defaults (watcher on an empty folder, empty queue, clock check,
 * rescans) in the systemd unit's environment and inside a memory group of the unit's
 * MemoryMax (unit-options.ts: V8 sizes its heap from it, as on a station), next to a bare
 * `node` doing nothing in a group of its own alike, both started together. After
 * `settleSec` their RSS (VmRSS, with its split into RssAnon and RssFile) is compared; then both one's CPU time (utime +
 * stime from /proc/<pid>/stat) is read over `idleSec`. Then the same pair through the
 * steady state (steady.ts: one recording every 15 s for 10 minutes).
 *
 * Beside them, through both phases, the same agent with TurboFan on (the daemon's `--no-opt`
 * dropped: bench/turbofan-on.cjs), with a local service of its own: what the daemon's V8 flag
 * (src/system/v8-flags.ts) saves, in memory idle and through the steady state, and in CPU per
 * recording there, measured side by side in one run.
 */
export async function runIdle(options: BenchOptions, dir: string, log: (line: string) => void): Promise<Figure[]> {
  const service = await startCountingService();
  const turbofanService = await startCountingService();
  const cfg = writeAgentConfig({ dir, serviceUrl: service.url, productionClock: true });
  const turbofanCfg = writeAgentConfig({ dir: path.join(dir, 'turbofan'), serviceUrl: turbofanService.url, productionClock: true });
  // The agent as the systemd unit runs it (its environment and V8 flags); the bare node in
  // the same environment without the flags, so that both pay the same for what it holds.
  const env = unitEnvironment();
  const limit = unitMemoryMaxBytes();
  const groups = [
    createMemoryGroup('station-agent-bench-idle-agent', limit),
    createMemoryGroup('station-agent-bench-idle-bare', limit),
    createMemoryGroup('station-agent-bench-idle-turbofan', limit),
  ];
  if (!groups[0] || !groups[1]) log('idle: no memory group (cgroup v1 not writable): V8 sizes the heaps from this machine\'s memory, not the unit\'s MemoryMax');
  const agent = startNodeIn([groups[0]], [CLI_MAIN, 'run', '--config', cfg.configPath], { env });
  const bare = startNodeIn([groups[1]], ['-e', 'setInterval(() => {}, 1000)'], { env: { ...env, NODE_OPTIONS: '' } });
  const turbofan = startNodeIn([groups[2]], ['-r', TURBOFAN_ON, CLI_MAIN, 'run', '--config', turbofanCfg.configPath], { env });
  try {
    await agent.waitForLine(/station-agent running/, 30_000);
    await turbofan.waitForLine(/station-agent running/, 30_000);
    await sleep(options.settleSec * 1000);
    const agentMem = procMemoryKb(agent.pid);
    const bareMem = procMemoryKb(bare.pid);
    const turbofanMem = procMemoryKb(turbofan.pid);
    if (turbofanMem == null) throw new Error(await goneReason('the agent with TurboFan on', turbofan));
    if (agentMem == null) throw new Error(await goneReason('the agent', agent));
    if (bareMem == null) throw new Error(await goneReason('the bare node', bare));
    const agentMb = agentMem.vmRss / 1024;
    const bareMb = bareMem.vmRss / 1024;
    log(`idle: agent ${formatMemory(agentMem)}, bare node ${formatMemory(bareMem)}, agent with TurboFan on ${formatMemory(turbofanMem)} after ${options.settleSec} s`);

    const agentCpu0 = cpuSeconds(agent.pid)!;
    const bareCpu0 = cpuSeconds(bare.pid)!;
    const t0 = performance.now();
    await sleep(options.idleSec * 1000);
    const wall = (performance.now() - t0) / 1000;
    const agentCpu = ((cpuSeconds(agent.pid)! - agentCpu0) / wall) * 100;
    const bareCpu = ((cpuSeconds(bare.pid)! - bareCpu0) / wall) * 100;
    log(`idle: CPU over ${wall.toFixed(1)} s: agent ${agentCpu.toFixed(2)} % of a core, bare node ${bareCpu.toFixed(2)} %`);
    const window = `${options.idleSec} s${options.idleSec < 60 ? ', shortened' : ''}`;
    const steady = await measureSteady(
      { agent, bare, inputDir: cfg.inputDir, service, turbofan: { agent: turbofan, inputDir: turbofanCfg.inputDir, service: turbofanService } },
      options,
      log,
    );
    return [
      figure({ id: 'memory.idleRss', name: `memory: idle agent VmRSS (${split(agentMem)})`, value: agentMb, unit: 'MB', digits: 1, detail: { settleSec: options.settleSec, ...memoryDetail(agentMem) } }),
      figure({ id: 'memory.bareNodeRss', name: `memory: bare node VmRSS (${split(bareMem)})`, value: bareMb, unit: 'MB', digits: 1, detail: { ...memoryDetail(bareMem) } }),
      figure({
        id: 'memory.idleRssTurbofan',
        name: `memory: idle agent VmRSS with TurboFan on, no --no-opt (${split(turbofanMem)})`,
        value: turbofanMem.vmRss / 1024,
        unit: 'MB',
        digits: 1,
        detail: { ...memoryDetail(turbofanMem) },
      }),
      figure({ id: 'memory.idleVsBare', name: 'memory: idle agent / bare node', value: agentMb / bareMb, unit: 'x', target: { op: '<=', value: 1.5 } }),
      figure({
        id: 'cpu.idle',
        name: `CPU: idle agent, watcher on (${window})`,
        value: agentCpu,
        unit: '% of a core',
        target: { op: '<=', value: 1 },
        targetUnit: ' %',
        detail: { windowSec: wall, bareNodePercent: bareCpu },
      }),
      ...steady,
    ];
  } finally {
    await Promise.all([agent.stop(), bare.stop(), turbofan.stop()]);
    await Promise.all([service.close(), turbofanService.close()]);
    for (const group of groups) group?.remove();
  }
}
