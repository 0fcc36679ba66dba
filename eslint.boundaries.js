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
 */

/** Any import that leaves the file's folder for a `src/` folder other than `src/wire/`: the agent. */
const AGENT_BEYOND_WIRE = {
  regex: String.raw`^(\.\./)+src/(?!wire/)`,
  message: 'The local service shares only src/wire/ with the agent: import the wire module, or give the emulator its own.',
};

export const boundaries = [
  {
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: String.raw`^(\.\./)+(emulator|demo|bench)(/|$)`,
              message: 'The agent does not import the local service, the demo or the benchmark (a station installs the agent alone).',
            },
            {
              regex: '^@station-agent/',
              message: 'The agent loads the development packages only by name at run time (src/cli/commands/support/dev-packages.ts).',
            },
          ],
        },
      ],
    },
  },
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
