/** Types of eslint.boundaries.js, for the test that proves its rules fire (test/lint/boundaries.test.ts). */
export declare const RANKS: readonly (readonly string[])[];
export declare const boundaries: readonly Record<string, unknown>[];
