import { z } from 'zod';
import { ENV_SHORTCUTS } from './env.js';
import { DEFAULT_CONFIG_PATH } from './load.js';
import { configSchema } from './schema.js';
import { configKeys, sectionDescriptions } from './schema-keys.js';
export function renderConfigReference() {
    const json = z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' });
    const sections = sectionDescriptions();
    const groups = new Map();
    for (const key of configKeys()) {
        const parent = key.path.slice(0, -1).join('.');
        groups.set(parent, [...(groups.get(parent) ?? []), key]);
    }
    const out = [INTRO.trim(), '', '## Keys', ''];
    for (const [parent, keys] of groups) {
        out.push(`### ${parent ? `\`${parent}\`` : 'Top level'}`, '');
        const about = sections.get(parent);
        if (about)
            out.push(about, '');
        out.push('| Key | Type | Default | Example | Description |', '|---|---|---|---|---|');
        for (const key of keys)
            out.push(row(key, json));
        out.push('');
    }
    return `${out.join('\n').trimEnd()}\n`;
}
function row(key, root) {
    const { node, required } = nodeAt(root, key.path);
    const cells = [
        `\`${key.id}\`<br>\`${key.envName}\``,
        typeText(key, node),
        defaultText(key, node, required),
        key.meta.examples && Array.isArray(key.meta.examples) ? code(JSON.stringify(key.meta.examples[0])) : '',
        key.meta.description ?? '',
    ];
    return `| ${cells.map(cell).join(' | ')} |`;
}
function nodeAt(root, path) {
    let node = root;
    let required = true;
    for (const key of path) {
        required = (node.required ?? []).includes(key);
        node = node.properties?.[key] ?? {};
    }
    return { node, required };
}
function typeText(key, node) {
    const branch = node.anyOf?.find((n) => n.type !== 'null') ?? node;
    const types = Array.isArray(branch.type) ? branch.type : branch.type ? [branch.type] : [];
    const nullable = key.schema.safeParse(null).success;
    let text;
    if (typeof key.meta.typeText === 'string')
        text = key.meta.typeText;
    else if (branch.enum)
        text = branch.enum.map((v) => code(String(v))).join(' \\| ');
    else if (key.meta.path === true)
        text = 'path';
    else if (types.includes('integer'))
        text = `integer${range(branch)}`;
    else if (types.includes('number'))
        text = `number${range(branch)}`;
    else
        text = types.filter((t) => t !== 'null').join(' or ') || 'any';
    return nullable ? `${text} or \`null\`` : text;
}
function range(node) {
    if (node.minimum !== undefined && node.maximum !== undefined)
        return `, ${node.minimum} to ${node.maximum}`;
    if (node.minimum !== undefined)
        return `, at least ${node.minimum}`;
    if (node.maximum !== undefined)
        return `, at most ${node.maximum}`;
    return '';
}
function defaultText(key, node, required) {
    if (typeof key.meta.defaultText === 'string')
        return key.meta.defaultText;
    if ('default' in node)
        return code(JSON.stringify(node.default));
    return required ? '**required**' : 'unset';
}
function code(text) {
    return `\`${text}\``;
}
function cell(text) {
    return text.replace(/\n/g, ' ').replace(/(?<!\\)\|/g, '\\|');
}
const shortcuts = Object.entries(ENV_SHORTCUTS)
    .map(([name, id]) => `\`${name}\` (\`${id}\`)`)
    .join(' and ');
const INTRO = `
# Configuration reference

<!-- Generated from src/config/schema.ts by src/config/reference.ts; do not edit by hand.
     Regenerate: UPDATE_DOCS=1 npx vitest run test/config/reference.test.ts -->

station-agent reads one JSON file. A complete example is \`config.example.json\` at the
repository root; a minimal one:

\`\`\`json
{
  "service": { "baseUrl": "https://service.example.org", "tokenFile": "/etc/station-agent/token" },
  "station": { "latitude": 52.52, "longitude": 13.4 },
  "input": { "dir": "/home/pi/analyzer/output" }
}
\`\`\`

## Where values come from

Later sources win: **defaults < config file < environment < command-line flags**.

- **Config file**: the path given on the command line, else \`$STATION_AGENT_CONFIG\`, else
  \`${DEFAULT_CONFIG_PATH}\`. A file that was named but is missing is an error; when the
  default path has no file, a warning says so and only defaults, environment and flags are used.
  Relative paths in the file are resolved against the file's folder.
- **Environment**: every key below has a variable, \`STATION_AGENT_\` followed by its key path
  in upper snake case: \`STATION_AGENT_UPLOAD_CONCURRENCY=2\`, \`STATION_AGENT_LOG_LEVEL=debug\`,
  \`STATION_AGENT_STATION_SETTINGS_MIN_SCORE=3\`. Values are read as JSON when the key accepts
  the result (\`2\`, \`true\`, \`null\`), else as plain text; an empty value counts as unset.
  Shortcuts: ${shortcuts}. Relative paths are resolved against the working directory.
  Other \`STATION_AGENT_*\` variables draw a warning, except \`STATION_AGENT_CONFIG\` and
  \`STATION_AGENT_ADMIN_TOKEN\` (the administrator token, read by CLI read commands only and
  deliberately not a config key).
- **Flags**: the command-line flags of each command. The token has no flag (other users can read
  a process's command line).

## The station token

Commands that talk to the service need the station token, from exactly one of
\`service.tokenFile\` (a file holding only the token; white space around it is trimmed),
\`STATION_AGENT_TOKEN\`, or \`service.token\`. Set in two places, the later source wins
and a warning names both. A config file that holds the token, and a token file, should be
readable by their owner only (\`chmod 600\`): otherwise a warning says so. The token never
appears in logs, error messages or \`config show\` (which prints \`<redacted>\`).
A token pasted into the wrong place stays hidden too: a missing \`service.tokenFile\` is
reported without its path, and \`service.baseUrl\` / \`service.graphqlUrl\` are printed with
scheme, host and port only (userinfo, path and query become \`<redacted>\`). Whatever a
command prints (a folder, a file name, an error) has the token it read replaced by
\`<redacted>\`, and a setting whose text holds the token is refused, naming its key
(\`station.settings.name holds the station token ...\`): a station name would be pushed to
the service as the station's public name, a folder named after the token printed and logged.

## Errors

An invalid configuration stops the agent (exit code 3) with one line per problem, each naming
the key: \`station.settings.minConfidence must be between 0.35 and 1 (got 0.2)\`,
\`input.format must be one of auto, results, analyzerpi (got a string)\`,
\`unknown key input.dirr (did you mean input.dir?)\`. Numbers, booleans and \`null\` are shown as
they came; a string never is (it may be a token in the wrong key), it is described as
\`(got a string)\`. Values from the environment or flags name their variable or flag; an
unknown \`STATION_AGENT_*\` variable is named, never its value. A file that is not valid JSON
is reported with line and column.
`;
