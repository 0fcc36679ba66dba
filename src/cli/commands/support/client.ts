import { Option } from 'commander';
import type { ServiceClient } from '../../../api/index.js';
import type { LoadedConfig } from '../../../config/index.js';
import { ConfigError } from '../../../config/errors.js';
import { UsageError } from './errors.js';
import { integerIn } from './options.js';

/**
 * The service client of the commands that talk to the service. Normally it uses
 * the station token of the config. An administrator reads another station with its
 * numeric id (`--station-id N`) and the admin token, which goes only into the
 * Authorization header: from `STATION_AGENT_ADMIN_TOKEN` or `--admin-token-file`
 * (never a flag value: other users can read command lines).
 */

export interface ClientFlags {
  stationId?: number;
  adminTokenFile?: string;
}

const ADMIN_TOKEN_ENV = 'STATION_AGENT_ADMIN_TOKEN';

export function stationIdOption(): Option {
  return new Option('--station-id <n>', `read the station with this numeric id, with the admin token (${ADMIN_TOKEN_ENV} or --admin-token-file)`).argParser(
    integerIn(1),
  );
}

export function adminTokenFileOption(): Option {
  return new Option('--admin-token-file <path>', 'file holding the administrator token (used with --station-id)');
}

export interface CliClient {
  client: ServiceClient;
  /** `station <id>` or `this station`, for messages. */
  target: string;
}

/**
 * @param station false for the endpoints without a station (species info, species
 *   lookup, global detection): no token is required then.
 */
export async function createCliClient(loaded: LoadedConfig, flags: ClientFlags, station = true): Promise<CliClient> {
  const { createServiceClient } = await import('../../../api/index.js');
  const common = { baseUrl: loaded.config.service.baseUrl, timeoutMs: loaded.config.service.timeoutMs, connections: 2 };
  if (flags.adminTokenFile !== undefined && flags.stationId === undefined) {
    throw new UsageError('--admin-token-file is used with --station-id <n> (the numeric id of the station to read)');
  }
  if (flags.stationId !== undefined) {
    const adminToken = await readAdminToken(flags.adminTokenFile);
    return {
      client: createServiceClient({ ...common, adminToken, stationId: flags.stationId }),
      target: `station ${flags.stationId}`,
    };
  }
  const token = loaded.config.service.token;
  if (!station) {
    return { client: createServiceClient({ ...common, ...(token ? { token } : {}) }), target: 'the service' };
  }
  const { requireToken } = await import('../../../config/index.js');
  const required = requireToken(loaded);
  return { client: createServiceClient({ ...common, token: required }), target: 'this station' };
}

async function readAdminToken(file: string | undefined): Promise<string> {
  if (file !== undefined) {
    const { readSecretFile, SecretFileError } = await import('../../../config/secret-files.js');
    try {
      return (await readSecretFile('--admin-token-file', file, { oneWord: true })).value;
    } catch (err) {
      if (err instanceof SecretFileError) throw new ConfigError([err.message], null, undefined, { cause: err });
      throw err;
    }
  }
  const token = process.env[ADMIN_TOKEN_ENV]?.trim();
  if (!token) throw new UsageError(`--station-id needs the administrator token: set ${ADMIN_TOKEN_ENV} or give --admin-token-file <path>`);
  return token;
}
