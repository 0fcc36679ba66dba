// @ts-check
/**
 * The boundaries between the repository's packages, as ESLint's built-in
 * `no-restricted-imports` (test/lint/boundaries.test.ts proves each one fires):
 *
 * - the agent (`src/`) imports none of the local service (`emulator/`), the demo (`demo/`)
 *   or the benchmark (`bench/`): a station installs the agent alone. `station-agent
 *   emulator` and `demo` load their packages by name at run time (src/cli/commands/support/dev-packages.ts);
 * - the wire module (`src/wire/`), the one module the agent shares with the local service,
 *   imports only Node's built-ins and itself;
 * - the local service (`emulator/src/`) reaches into the agent only through `src/wire/`.
 *
 * The demo and the benchmark may import both. The patterns read the import's text, so
 * each rule names what a path to the forbidden folder looks like from where it applies.
 *
 * Inside the agent, the folders are ranked as the data flows (docs/ARCHITECTURE.md, "Import
 * ranks"); a folder imports only from its own rank or below, never from a folder above:
 */
export const RANKS = [
  ['cli'],
  ['daemon'],
  ['status', 'metrics', 'alerts', 'mqtt', 'audit'],
  ['runtime'],
  ['ingest'],
  ['policy'],
  ['upload'],
  ['encode'],
  ['queue'],
  ['api', 'audio'],
  ['config'],
  ['log'],
  ['system', 'wire', 'errors.ts', 'version.ts'],
];

/**
 * Circles are refused by `import-x/no-cycle` over the whole of `src/` (runtime imports;
 * `import type` is erased at build and not counted).
 */

/** Any import that leaves the file's folder for a `src/` folder other than `src/wire/`: the agent. */
const AGENT_BEYOND_WIRE = {
  regex: String.raw`^(\.\./)+src/(?!wire/)`,
  message: 'The local service shares only src/wire/ with the agent: import the wire module, or give the emulator its own.',
};

/** What no file of the agent imports. */
const AGENT_PATTERNS = [
  {
    regex: String.raw`^(\.\./)+(emulator|demo|bench)(/|$)`,
    message: 'The agent does not import the local service, the demo or the benchmark (a station installs the agent alone).',
  },
  {
    regex: '^@station-agent/',
    message: 'The agent loads the development packages only by name at run time (src/cli/commands/support/dev-packages.ts).',
  },
];

/**
 * One block per folder of `src/` below the top rank: its imports may not reach a folder of a
 * higher rank. (A later block replaces an earlier one's `no-restricted-imports` for the same
 * files, so each carries the agent's patterns too.) No folder below `src/` has the name of a
 * top folder, so `../` followed by one is always the top folder.
 */
function rankBlocks() {
  const blocks = [];
  RANKS.forEach((rank, i) => {
    const above = RANKS.slice(0, i).flat().map((f) => f.replace(/\.ts$/, ''));
    if (above.length === 0) return;
    for (const folder of rank) {
      const files = folder.endsWith('.ts') ? [`src/${folder}`] : [`src/${folder}/**/*.ts`];
      blocks.push({
        files,
        rules: {
          'no-restricted-imports': [
            'error',
            {
              patterns: [
                ...AGENT_PATTERNS,
                {
                  // A top-level file (errors.ts) reaches a folder with `./`; a folder's file with `../`.
                  regex: (folder.endsWith('.ts') ? String.raw`^\./` : String.raw`^(\.\./)+`) + `(${above.join('|')})` + String.raw`(/|\.js$|$)`,
                  message: `src/${folder} is ranked below ${above.join(', ')} (eslint.boundaries.js RANKS, docs/ARCHITECTURE.md): it does not import from them. Move what both need down, or hand it in from the daemon.`,
                },
              ],
            },
          ],
        },
      });
    }
  });
  return blocks;
}

export const boundaries = [
  {
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: AGENT_PATTERNS }],
    },
  },
  ...rankBlocks(),
  {
    files: ['src/wire/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: String.raw`^(?!node:|\./)`,
              message: 'src/wire/ is shared with the local service: it imports only node: built-ins and its own files.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['emulator/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            AGENT_BEYOND_WIRE,
            {
              regex: String.raw`^(\.\./)+(demo|bench|test)/`,
              message: 'The local service does not import the demo, the benchmark or tests.',
            },
            { regex: '^@station-agent/demo', message: 'The local service does not import the demo.' },
          ],
        },
      ],
    },
  },
];
