/**
 * graphql-js, as one instance. graphql-js refuses a schema or error made by another
 * copy of itself ("from another module or realm"), and the package has two entry
 * points: `index.js` (CommonJS, what Node's `import 'graphql'` loads, and what
 * graphql-ws loads) and `index.mjs` (what bundler-style resolvers such as vitest's
 * pick). Naming the CommonJS file keeps the schema, graphql-ws and the resolvers on
 * the same copy under every loader.
 */
export * from 'graphql/index.js';
