import type { BenchOptions } from './options.js';
import { writeAgentConfig } from './agent-config.js';
import { createMemoryGroup } from './cgroup.js';
import { CLI_MAIN, cpuSeconds, formatMemory, goneReason, memoryDetail, procMemoryKb, sleep, split, startNodeIn } from './proc.js';
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
 */
export async function runIdle(options: BenchOptions, dir: string, log: (line: string) => void): Promise<Figure[]> {
  const service = await startCountingService();
  const cfg = writeAgentConfig({ dir, serviceUrl: service.url, productionClock: true });
  // The agent as the systemd unit runs it (its environment and V8 flags); the bare node in
  // the same environment without the flags, so that both pay the same for what it holds.
  const env = unitEnvironment();
  const limit = unitMemoryMaxBytes();
  const groups = [createMemoryGroup('station-agent-bench-idle-agent', limit), createMemoryGroup('station-agent-bench-idle-bare', limit)];
  if (!groups[0] || !groups[1]) log('idle: no memory group (cgroup v1 not writable): V8 sizes the heaps from this machine\'s memory, not the unit\'s MemoryMax');
  const agent = startNodeIn([groups[0]], [CLI_MAIN, 'run', '--config', cfg.configPath], { env });
  const bare = startNodeIn([groups[1]], ['-e', 'setInterval(() => {}, 1000)'], { env: { ...env, NODE_OPTIONS: '' } });
  try {
    await agent.waitForLine(/station-agent running/, 30_000);
    await sleep(options.settleSec * 1000);
    const agentMem = procMemoryKb(agent.pid);
    const bareMem = procMemoryKb(bare.pid);
    if (agentMem == null) throw new Error(await goneReason('the agent', agent));
    if (bareMem == null) throw new Error(await goneReason('the bare node', bare));
    const agentMb = agentMem.vmRss / 1024;
    const bareMb = bareMem.vmRss / 1024;
    log(`idle: agent ${formatMemory(agentMem)}, bare node ${formatMemory(bareMem)} after ${options.settleSec} s`);

    const agentCpu0 = cpuSeconds(agent.pid)!;
    const bareCpu0 = cpuSeconds(bare.pid)!;
    const t0 = performance.now();
    await sleep(options.idleSec * 1000);
    const wall = (performance.now() - t0) / 1000;
    const agentCpu = ((cpuSeconds(agent.pid)! - agentCpu0) / wall) * 100;
    const bareCpu = ((cpuSeconds(bare.pid)! - bareCpu0) / wall) * 100;
    log(`idle: CPU over ${wall.toFixed(1)} s: agent ${agentCpu.toFixed(2)} % of a core, bare node ${bareCpu.toFixed(2)} %`);
    const window = `${options.idleSec} s${options.idleSec < 60 ? ', shortened' : ''}`;
    const steady = await measureSteady({ agent, bare, inputDir: cfg.inputDir, service }, options, log);
    return [
      figure({ id: 'memory.idleRss', name: `memory: idle agent VmRSS (${split(agentMem)})`, value: agentMb, unit: 'MB', digits: 1, detail: { settleSec: options.settleSec, ...memoryDetail(agentMem) } }),
      figure({ id: 'memory.bareNodeRss', name: `memory: bare node VmRSS (${split(bareMem)})`, value: bareMb, unit: 'MB', digits: 1, detail: { ...memoryDetail(bareMem) } }),
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
    await Promise.all([agent.stop(), bare.stop()]);
    await service.close();
    for (const group of groups) group?.remove();
  }
}
