import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/validate.js';
import { redactConfig } from '../../src/config/show.js';
import { minimalConfig } from './config-files.js';

describe('redactConfig', () => {
  it('hides the token and keeps the token file path, on a copy', () => {
    const input = minimalConfig();
    input.service.token = 'tok-secret-1';
    const config = parseConfig(input);
    const shown = redactConfig(config);
    expect(shown.service.token).toBe('<redacted>');
    expect(JSON.stringify(shown)).not.toContain('tok-secret-1');
    expect(config.service.token).toBe('tok-secret-1');

    // A loaded config with a token file holds both: the path stays visible.
    const withFile = { ...config, service: { ...config.service, tokenFile: '/etc/station-agent/token' } };
    expect(redactConfig(withFile).service).toMatchObject({ token: '<redacted>', tokenFile: '/etc/station-agent/token' });
  });

  it('shows only scheme, host and port of the service URLs (a token pasted there stays hidden)', () => {
    const input = minimalConfig();
    input.service.baseUrl = 'https://user:tok-in-url@svc.example/tok-in-path';
    const shown = redactConfig(parseConfig(input));
    expect(shown.service.baseUrl).toBe('https://<redacted>@svc.example/<redacted>');
    // The default GraphQL URL keeps its documented /graphql after the reduced base URL.
    expect(shown.service.graphqlUrl).toBe('https://<redacted>@svc.example/<redacted>/graphql');
    expect(JSON.stringify(shown)).not.toContain('tok-in');
    const own = redactConfig(parseConfig({ ...input, service: { ...input.service, graphqlUrl: 'https://gql.example/q?key=tok-in-query' } }));
    expect(own.service.graphqlUrl).toBe('https://gql.example/<redacted>?<redacted>');
  });

  it('shows the webhook and broker URLs as scheme, host and port, and no header value (issue 19 item 5)', () => {
    const input = {
      ...minimalConfig(),
      alerts: {
        webhook: { url: 'https://ha.local:8123/api/webhook/ha-webhook-id-secret', headers: { Title: 'Garden', 'X-Api-Key': 'hdr-secret' } },
        heartbeat: { url: 'https://kuma.local/api/push/kuma-push-secret?status=up&msg=OK' },
      },
      mqtt: { enabled: true, url: 'ws://user:mq-pass@broker.local:9001/mq-secret-path' },
    };
    const shown = redactConfig(parseConfig(input));
    expect(shown.alerts.webhook.url).toBe('https://ha.local:8123/<redacted>');
    expect(shown.alerts.webhook.headers).toEqual({ Title: '<redacted>', 'X-Api-Key': '<redacted>' });
    expect(shown.mqtt.url).toBe('ws://<redacted>@broker.local:9001/<redacted>');
    expect(shown.alerts.heartbeat.url).toBe('https://kuma.local/<redacted>?<redacted>');
    for (const secret of ['ha-webhook-id-secret', 'hdr-secret', 'mq-pass', 'mq-secret-path', 'kuma-push-secret']) expect(JSON.stringify(shown)).not.toContain(secret);
  });

  it('leaves a config without token or URL path as it is', () => {
    const config = parseConfig(minimalConfig());
    expect(redactConfig(config)).toEqual(config);
  });
});
