import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

// Import circles found with TypeScript's own module resolution (the tsconfig's NodeNext and `source` condition),
// so `@voice/kit` and the other workspaces resolve to the same source files tsc and tsx load. Every static import
// and re-export counts, `import type` too: erased at run time, a type-only circle cannot leave a module
// half-initialised, but it is the same tangle (each module knowing the other) and turns into a runtime circle
// with the next value imported along it. A dynamic import() runs after loading, so it does not count.

const skipDirs = new Set(['node_modules', 'dist', 'generated']);

function sourceFiles(dir: string, found: string[] = []): string[] {
  for (const entry of readdirSync(dir)) {
    if (skipDirs.has(entry)) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) sourceFiles(path, found);
    else if (/\.ts$/.test(entry) && !entry.endsWith('.d.ts')) found.push(path);
  }
  return found;
}

/** The specifiers of a file's static imports and re-exports. */
function staticSpecifiers(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const specifiers: string[] = [];
  for (const statement of source.statements) {
    const from = ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement) ? statement.moduleSpecifier : undefined;
    if (from && ts.isStringLiteral(from)) specifiers.push(from.text);
  }
  return specifiers;
}

function compilerOptions(root: string): ts.CompilerOptions {
  const configPath = join(root, 'tsconfig.base.json');
  const config = ts.readConfigFile(configPath, ts.sys.readFile);
  return ts.parseJsonConfigFileContent(config.config, ts.sys, root).options;
}

/** Each file under the given directories (relative to root) and the repository files it imports statically. */
export function importGraph(root: string, dirs: string[]): Map<string, string[]> {
  const options = compilerOptions(root);
  const host = ts.createCompilerHost(options);
  const graph = new Map<string, string[]>();
  for (const file of dirs.flatMap((dir) => sourceFiles(join(root, dir)))) {
    const imported = staticSpecifiers(file)
      .map((specifier) => ts.resolveModuleName(specifier, file, options, host).resolvedModule?.resolvedFileName)
      .filter((resolved): resolved is string => resolved !== undefined && !resolved.includes('/node_modules/'))
      .map((resolved) => relative(root, resolved));
    graph.set(relative(root, file), imported);
  }
  return graph;
}

/** Every import circle, each as the files along it back to its first (one per strongly connected component). */
export function importCircles(graph: Map<string, string[]>): string[][] {
  // Tarjan's strongly connected components; a component of more than one file, or a file importing itself, is a circle.
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let counter = 0;
  const visit = (file: string): void => {
    index.set(file, counter);
    lowLink.set(file, counter);
    counter += 1;
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        lowLink.set(file, Math.min(lowLink.get(file) as number, lowLink.get(next) as number));
      } else if (onStack.has(next)) {
        lowLink.set(file, Math.min(lowLink.get(file) as number, index.get(next) as number));
      }
    }
    if (lowLink.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) components.push(component);
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return components.map((component) => circleThrough(graph, new Set(component)));
}

/** One concrete path around a component, from its alphabetically first file back to it, for a readable message. */
function circleThrough(graph: Map<string, string[]>, component: Set<string>): string[] {
  const start = [...component].sort()[0] as string;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift() as string;
    for (const next of graph.get(file) ?? []) {
      if (!component.has(next)) continue;
      if (next === start) {
        const path = [file];
        while (path[0] !== start) path.unshift(cameFrom.get(path[0] as string) as string);
        return [...path, start];
      }
      if (!cameFrom.has(next)) {
        cameFrom.set(next, file);
        queue.push(next);
      }
    }
  }
  return [start, start];
}
