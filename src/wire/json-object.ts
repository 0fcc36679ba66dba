/**
 * Whether a parsed JSON value (a service answer, a stored snapshot) is an object, not an
 * array or null: the one test the agent reads untrusted JSON with before taking its fields.
 *
 * @example isObject(JSON.parse('{"success":true}')) // true; isObject([]) and isObject(null) are false
 */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
