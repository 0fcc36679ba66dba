// Module resolution hooks (they run on Node's loader thread): one line per resolved URL,
// `<pid> <url>`, appended synchronously so nothing is lost when the process exits right
// after. The pid tells the process from the children it starts (they inherit NODE_OPTIONS).
import { appendFileSync } from 'node:fs';
import process from 'node:process';

const file = process.env.MODULE_TRACE_FILE;

export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  if (file) appendFileSync(file, `${process.pid} ${result.url}\n`);
  return result;
}
