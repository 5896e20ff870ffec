import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { importCircles, importGraph } from './support/import-graph.js';

// A module imported while one of its own importers is still loading sees that importer's exports undefined
// (or in their temporal dead zone): a circle is a load-order bug waiting for the next refactor. None is allowed.

const root = fileURLToPath(new URL('../..', import.meta.url));
const sourceDirs = [
  'gateway/src',
  'proto/src',
  ...readdirSync(`${root}/packages`).map((name) => `packages/${name}/src`),
  ...readdirSync(`${root}/services`).map((name) => `services/${name}/src`),
];

test('no source module imports itself back, directly or through others', () => {
  const circles = importCircles(importGraph(root, sourceDirs));
  assert.deepEqual(
    circles.map((circle) => circle.join(' → ')),
    [],
    'import circles: break each by moving what both sides need into a module of its own',
  );
});

test('the check finds a circle and names the files along it', () => {
  const graph = new Map([
    ['a.ts', ['b.ts']],
    ['b.ts', ['c.ts']],
    ['c.ts', ['a.ts']],
    ['d.ts', ['a.ts']],
  ]);
  assert.deepEqual(importCircles(graph), [['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
});
