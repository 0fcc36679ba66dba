import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/paths.js';

/**
 * The daemon's components reach each other only through the station context (its state
 * registry and bus), and the wiring module only builds, starts and stops them (issue 34;
 * docs/ARCHITECTURE.md, "The daemon as components"). No import graph of folders shows a
 * component reading another's members, so this test reads src/daemon itself: a component's
 * file imports no other component's file, and src/daemon/index.ts names a component class
 * only in its COMPONENTS list.
 */
const DAEMON = path.join(REPO_ROOT, 'src/daemon');

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
}

/** The files of src/daemon that hold a class implementing Component. */
function componentFiles(): Set<string> {
  const files = readdirSync(DAEMON).filter((f) => f.endsWith('.ts'));
  return new Set(files.filter((f) => /\bclass \w+ implements Component\b/.test(readFileSync(path.join(DAEMON, f), 'utf8'))));
}

/** The sibling files `file` imports (`./x.js` as `x.ts`), with the names it imports from each. */
function siblingImports(source: ts.SourceFile): { file: string; names: string[] }[] {
  const out: { file: string; names: string[] }[] = [];
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const spec = statement.moduleSpecifier.text;
    if (!spec.startsWith('./')) continue;
    const bindings = statement.importClause?.namedBindings;
    const names = bindings && ts.isNamedImports(bindings) ? bindings.elements.map((e) => e.name.text) : [];
    out.push({ file: spec.slice(2).replace(/\.js$/, '.ts'), names });
  }
  return out;
}

/** Where `names` appear in `source` outside its imports and outside the initializer of `listName`. */
function usesOutside(source: ts.SourceFile, names: ReadonlySet<string>, listName: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) return;
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.name.text === listName) return;
    if (ts.isIdentifier(node) && names.has(node.text)) {
      found.push(`${node.text} at line ${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('src/daemon: components meet only in the station context', () => {
  const components = componentFiles();

  it('finds the components', () => {
    expect(components.size).toBeGreaterThanOrEqual(10);
    expect([...components]).toEqual(expect.arrayContaining(['uploader.ts', 'ingest.ts', 'housekeeping.ts']));
  });

  it('a component file imports no other component file', () => {
    const crossings = [...components].flatMap((file) =>
      siblingImports(parse(path.join(DAEMON, file)))
        .filter((i) => components.has(i.file) && i.file !== file)
        .map((i) => `${file} imports ${i.file}`),
    );
    expect(crossings).toEqual([]);
  });

  it('index.ts names a component class only in COMPONENTS', () => {
    const index = parse(path.join(DAEMON, 'index.ts'));
    const classes = new Set(siblingImports(index).filter((i) => components.has(i.file)).flatMap((i) => i.names));
    expect(classes.size).toBe(components.size);
    expect(usesOutside(index, classes, 'COMPONENTS')).toEqual([]);
  });
});
