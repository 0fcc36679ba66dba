/**
 * Removing secrets from text. Two nets: the literal secret values (and their
 * URL-encoded forms), and any `/stations/<segment>` path segment, since station paths
 * carry the token (`{base_url}/api/v1/stations/{token}/...`) and a URL may be logged
 * before anyone knows which token it holds. The segment becomes `<token>`, as in the
 * API client's redacted request lines.
 */

export const REDACTED = '<redacted>';

const STATION_SEGMENT = /\/stations\/[^/?#\s"'<>\\]+/g;

/** `text` without any of `secrets` and without station path segments. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  // Station paths first, so they read `/stations/<token>` like the API client's request
  // lines; known secrets there first of all, since a token may hold a `/`.
  let out = text;
  for (const secret of expandSecrets(secrets)) {
    const segment = `/stations/${secret}`;
    if (out.includes(segment)) out = out.split(segment).join('/stations/<token>');
  }
  return removeSecrets(out.replace(STATION_SEGMENT, '/stations/<token>'), secrets);
}

/** `text` with each of `secrets` (and its URL-encoded form) replaced by `<redacted>`. */
export function removeSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of expandSecrets(secrets)) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  return out;
}

/** Non-empty secrets and their URL-encoded forms, longest first (so a secret inside another goes second). */
export function expandSecrets(secrets: readonly string[]): string[] {
  const all = new Set<string>();
  for (const secret of secrets) {
    if (!secret) continue;
    all.add(secret);
    all.add(encodeURIComponent(secret));
  }
  return [...all].sort((a, b) => b.length - a.length);
}
