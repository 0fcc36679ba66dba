import { afterEach, describe, expect, it } from 'vitest';
import { createServiceClient } from '../../src/api/index.js';
import { HttpStatusError } from '../../src/api/errors.js';
import { postGraphql } from '../../src/cli/commands/graphql-support.js';
import type { Config } from '../../src/config/index.js';
import { probeService } from '../../src/status/probe.js';
import { startServer, type Handler } from './test-server.js';

/**
 * The REST client, the status probe and the CLI's GraphQL support read an answer through
 * one classifier (src/api/answer.ts): given the same answer from a real server, they
 * agree on whether it is an HTML page, and the probe and the uploader agree on whether
 * the token was refused. (They used to differ: the probe took any body starting with `<`
 * for HTML, GraphQL ignored the content type.)
 */
const TOKEN = 'answer-test-token-0123456789';
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

const answer =
  (status: number, type: string, body: string): Handler =>
  (_req, res) =>
    res.writeHead(status, { 'content-type': type }).end(body);

const CASES: { name: string; handler: Handler; html: boolean; text?: string }[] = [
  { name: 'a proxy page typed text/html that does not start with a tag', handler: answer(403, 'text/html', 'Access denied by proxy'), html: true },
  { name: 'an XML error, not HTML', handler: answer(403, 'application/xml', '<?xml version="1.0"?><error>denied</error>'), html: false },
  { name: 'an HTML page typed text/plain', handler: answer(403, 'text/plain', '<html><body>Forbidden</body></html>'), html: true },
  { name: "the service's own refusal", handler: answer(403, 'application/json', '{"message":"Access denied"}'), html: false, text: 'HTTP 403: Access denied (GET ' },
];

describe('one classifier for every reader of an HTTP answer', () => {
  for (const c of CASES) {
    it(`${c.name}: html ${c.html} for REST, probe and GraphQL`, async () => {
      const s = await startServer(c.handler);
      cleanups.push(() => s.close());

      const client = createServiceClient({ baseUrl: s.url, token: TOKEN, timeoutMs: 2_000 });
      cleanups.push(() => client.close());
      const rest = await client.stats().then(
        () => null,
        (e: unknown) => e,
      );
      expect(rest).toBeInstanceOf(HttpStatusError);
      expect((rest as HttpStatusError).html).toBe(c.html);
      if (c.text) expect((rest as HttpStatusError).message.slice(0, c.text.length)).toBe(c.text);

      const probe = await probeService({ service: { baseUrl: s.url, token: TOKEN } } as Config, { timeoutMs: 2_000 });
      expect(probe.error?.message.includes('HTML page instead of JSON')).toBe(c.html);
      // An HTML page with 403 is a proxy's, not the service refusing the token.
      expect(probe.tokenValid).toBe(c.html ? null : false);

      const graphql = await postGraphql(`${s.url}/graphql`, { query: '{ __typename }' }, 2_000).then(
        () => null,
        (e: unknown) => e,
      );
      expect(graphql).toBeInstanceOf(HttpStatusError);
      expect((graphql as HttpStatusError).html).toBe(c.html);
    });
  }
});
