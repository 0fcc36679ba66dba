import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/paths.js';

/**
 * The uploader stays in parts a reader can hold (issue 34): no class of src/upload has
 * more than 10 fields (its state, parameter properties included: a readonly Map is state
 * too) or more than 300 lines. A class that grows past them is a room to split along its
 * seams, as the uploader was (planner, health, outcome writer).
 */
const MAX_FIELDS = 10;
const MAX_LINES = 300;

interface ClassSize {
  name: string;
  fields: number;
  lines: number;
}

function classSizes(file: string): ClassSize[] {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const sizes: ClassSize[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) {
      let fields = 0;
      for (const member of node.members) {
        if (ts.isPropertyDeclaration(member) && !member.modifiers?.some((m) => m.kind === ts.SyntaxKind.StaticKeyword)) fields++;
        if (ts.isConstructorDeclaration(member)) fields += member.parameters.filter((p) => ts.getModifiers(p)?.length).length;
      }
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      sizes.push({ name: node.name?.text ?? '(anonymous)', fields, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return sizes;
}

describe('src/upload: rooms a reader can hold', () => {
  const dir = path.join(REPO_ROOT, 'src/upload');
  const classes = readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .flatMap((f) => classSizes(path.join(dir, f)).map((c) => ({ file: f, ...c })));

  it('finds the uploader and its parts', () => {
    expect(classes.map((c) => c.name)).toEqual(expect.arrayContaining(['Uploader', 'UploadHealth', 'OutcomeWriter']));
  });

  it(`has no class with more than ${MAX_FIELDS} fields or ${MAX_LINES} lines`, () => {
    const over = classes.filter((c) => c.fields > MAX_FIELDS || c.lines > MAX_LINES).map((c) => `${c.file} ${c.name}: ${c.fields} fields, ${c.lines} lines`);
    expect(over).toEqual([]);
  });

  it('counts what it is meant to count', () => {
    const probe = path.join(REPO_ROOT, 'src/upload/uploader.ts');
    const uploader = classSizes(probe).find((c) => c.name === 'Uploader')!;
    // Its own fields and the two parameter properties (queue, log).
    const declared = readFileSync(probe, 'utf8').split('export class Uploader')[1].split('\n  constructor(')[0];
    expect(uploader.fields).toBe([...declared.matchAll(/^ {2}private /gm)].length + 2);
  });
});
