/**
 * Lists the long functions and files of a source tree, to see where code needs splitting and to measure
 * a reshaping before and after. A function is any function declaration, method, accessor, constructor,
 * function expression or arrow function; its length counts the lines from its first to its last
 * character (a nested function is counted on its own and inside its parent). Reads the files with the
 * TypeScript compiler's parser only: no type checking, nothing run.
 *
 *   npx tsx scripts/function-lengths.ts                 # src, functions over 100 lines, files over 600
 *   npx tsx scripts/function-lengths.ts --functions 80 --files 400 src/modules/reports
 *   npx tsx scripts/function-lengths.ts --summary       # the two counts only
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export interface LongFunction {
  file: string;
  name: string;
  line: number;
  lines: number;
}

export interface LongFile {
  file: string;
  lines: number;
}

/** The `.ts`/`.tsx` files below `root` (declaration files and node_modules left out), sorted. */
export function sourceFiles(root: string): string[] {
  if (statSync(root).isFile()) return [root];
  const found: string[] = [];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const path = join(root, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') found.push(...sourceFiles(path));
    } else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) found.push(path);
  }
  return found.sort();
}

function isFunctionLike(node: ts.Node): node is ts.FunctionLikeDeclaration {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

/** A readable name: its own, the variable or property it is assigned to, or the call it is passed to. */
function functionName(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string {
  if (node.name) return node.name.getText(source);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return parent.name.getText(source);
  if (ts.isCallExpression(parent)) {
    const callee = parent.expression.getText(source).replace(/\s+/g, '');
    const first = parent.arguments[0];
    const label = first && ts.isStringLiteralLike(first) ? ` ${first.text}` : '';
    return `(callback of ${callee}${label})`;
  }
  return '(anonymous)';
}

/** The functions of one file's text longer than `limit` lines. */
export function longFunctions(file: string, text: string, limit: number): LongFunction[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node): void => {
    if (isFunctionLike(node) && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > limit) found.push({ file, name: functionName(node, source), line: first + 1, lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Lines of a text (a final newline ends the last line, it does not start one). */
export function lineCount(text: string): number {
  const lines = text.split('\n').length;
  return text.endsWith('\n') ? lines - 1 : lines;
}

function option(args: string[], name: string, fallback: number): number {
  const index = args.indexOf(name);
  if (index < 0) return fallback;
  const value = Number(args[index + 1]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} takes a whole number`);
  args.splice(index, 2);
  return value;
}

function main(argv: string[]): void {
  const args = [...argv];
  const functionLimit = option(args, '--functions', 100);
  const fileLimit = option(args, '--files', 600);
  const summary = args.includes('--summary');
  const roots = args.filter((a) => !a.startsWith('--'));
  const files = (roots.length > 0 ? roots : ['src']).flatMap(sourceFiles);

  const functions: LongFunction[] = [];
  const longFiles: LongFile[] = [];
  for (const path of files) {
    const text = readFileSync(path, 'utf8');
    const file = relative(process.cwd(), path);
    const lines = lineCount(text);
    if (lines > fileLimit) longFiles.push({ file, lines });
    functions.push(...longFunctions(file, text, functionLimit));
  }
  longFiles.sort((a, b) => b.lines - a.lines);
  functions.sort((a, b) => b.lines - a.lines);

  if (!summary) {
    process.stdout.write(`Files over ${fileLimit} lines:\n`);
    for (const f of longFiles) process.stdout.write(`  ${String(f.lines).padStart(5)}  ${f.file}\n`);
    process.stdout.write(`Functions over ${functionLimit} lines:\n`);
    for (const f of functions)
      process.stdout.write(`  ${String(f.lines).padStart(5)}  ${f.file}:${f.line}  ${f.name}\n`);
  }
  process.stdout.write(
    `${files.length} files read; ${longFiles.length} files over ${fileLimit} lines; ` +
      `${functions.length} functions over ${functionLimit} lines\n`,
  );
}

if (process.argv[1]?.endsWith('function-lengths.ts')) main(process.argv.slice(2));
