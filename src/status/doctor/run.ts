import { ConfigError, loadConfig } from '../../config/index.js';
import { audioCopyCheck, clockCheck, diskCheck, flacCheck, inputChecks, queueCheck, spoolCheck } from './local-checks.js';
import { serviceChecks } from './service-checks.js';
import { alertCheck } from './alert-check.js';
import { runtimeCheck, updateCheck } from './update-checks.js';
import { result, type CheckResult, type DoctorReport } from './types.js';

export interface DoctorOptions {
  /** The config file; default as `loadConfig`. */
  configPath?: string;
  /** Skip the service checks. */
  offline?: boolean;
  /** Time limit of the service probe. */
  timeoutMs?: number;
  /** Send a test notification to `alerts.webhook.url`. */
  testAlert?: boolean;
}

/**
 * Runs every check. An invalid configuration is reported as the one failed check
 * (nothing else can be checked without it); otherwise the independent checks run
 * concurrently and are reported in a fixed order.
 */
export async function runDoctor(options: DoctorOptions = {}): Promise<DoctorReport> {
  let loaded;
  try {
    // An unreadable token file fails the token check, not the whole run: the rest is checked as usual.
    loaded = await loadConfig({ path: options.configPath, cache: false, unreadableTokenFile: 'report' });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    const check = result('config', 'config valid', 'fail', err.problems.join('; '), `fix the keys named (${err.file ?? 'no config file'}); \`station-agent config validate\` lists them one per line`, {
      file: err.file,
      problems: err.problems,
    });
    return { ok: false, configInvalid: true, checks: [check] };
  }
  const { config } = loaded;
  const configCheck = loaded.warnings.length
    ? result('config', 'config valid', 'warn', `${loaded.path ?? 'no config file'}: ${loaded.warnings.join('; ')}`, 'valid, but see the warnings', { file: loaded.path, warnings: loaded.warnings })
    : result('config', 'config valid', 'pass', loaded.path ?? 'no config file; environment only', null, { file: loaded.path });

  const [service, clock, input, spool, queue, disk, flac, mqtt, alert, audioCopy, update] = await Promise.all([
    options.offline && !loaded.tokenProblem
      ? Promise.resolve([result('service', 'service reachable', 'skip', 'not checked (--offline)'), result('token', 'token accepted', 'skip', 'not checked (--offline)')])
      : serviceChecks(config, options.timeoutMs ?? 5_000, loaded.tokenProblem),
    clockCheck(config),
    inputChecks(config),
    spoolCheck(config),
    queueCheck(config),
    diskCheck(config),
    flacCheck(config),
    // The mqtt package and its check are loaded only when MQTT is on.
    config.mqtt.enabled
      ? import('./mqtt-check.js').then((m) => m.mqttCheck(config, options.timeoutMs ?? 5_000))
      : Promise.resolve(result('mqtt', 'MQTT broker', 'skip', 'mqtt.enabled is false')),
    alertCheck(config, loaded.path ?? null, options.testAlert === true),
    audioCopyCheck(config),
    updateCheck(),
  ]);
  const checks: CheckResult[] = [configCheck, ...service, clock, input.input, input.labels, spool, audioCopy, queue, disk, flac, input.inotify, mqtt, alert, runtimeCheck(), update];
  return { ok: checks.every((c) => c.status !== 'fail'), configInvalid: false, checks };
}
