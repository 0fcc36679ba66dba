/** A URL safe to log: the station token segment becomes `<token>`, query values of `token` are dropped. */
export function redactUrl(url: string): string {
  return url
    .replace(/(\/stations\/)[^/?#]+/, '$1<token>')
    .replace(/([?&](?:token|auth|key)=)[^&#]*/gi, '$1<redacted>');
}
