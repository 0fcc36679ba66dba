import { probeService } from '../probe.js';
import { result } from './types.js';
export async function serviceChecks(config, timeoutMs, tokenProblem = null) {
    if (tokenProblem) {
        return [
            result('service', 'service reachable', 'skip', 'not checked: the station token could not be read'),
            result('token', 'token accepted', 'fail', tokenProblem, 'make service.tokenFile a regular file holding the token alone, readable by the agent\'s user (chmod 600)'),
        ];
    }
    const p = await probeService(config, { timeoutMs });
    const url = p.baseUrl;
    if (!p.checked) {
        return [
            result('service', 'service reachable', 'skip', `not checked: ${p.skipped ?? ''}`),
            result('token', 'token accepted', 'fail', p.skipped ?? 'no token', 'set service.tokenFile (a file readable by the agent only) or STATION_AGENT_TOKEN'),
        ];
    }
    const service = p.reachable
        ? p.tokenValid === null && p.status !== null && p.status >= 500
            ? result('service', 'service reachable', 'fail', `${url} answered HTTP ${p.status}: ${p.error?.message ?? ''}`, 'the service is failing; uploads retry on their own with backoff. Try again later', { status: p.status })
            : result('service', 'service reachable', 'pass', `${url} answered in ${p.latencyMs} ms`, null, { latencyMs: p.latencyMs })
        : result('service', 'service reachable', 'fail', `${url}: ${p.error?.message ?? 'no answer'}`, `check service.baseUrl, DNS and the network (curl -sS ${url}/api/v1/species/1); timeouts on a slow link: raise service.timeoutMs`);
    let token;
    if (p.tokenValid === true)
        token = result('token', 'token accepted', 'pass', 'the service accepted the station token');
    else if (p.tokenValid === false) {
        token = result('token', 'token accepted', 'fail', `the service refused the token (HTTP ${p.status})`, 'copy the station token again into service.tokenFile / STATION_AGENT_TOKEN; uploads stay paused until it is accepted');
    }
    else
        token = result('token', 'token accepted', 'skip', 'could not be checked: the service did not answer normally');
    return [service, token];
}
