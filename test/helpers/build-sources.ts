// What a TypeScript project compiles and what the compiled code loads at run time, read from the
// sources (parsed, not type-checked: far quicker than the compiler): the files of the project's
// include patterns and every file they import, and the packages the compiled files load.
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export interface PackageUse {
  file: string;
  how: 'import' | 'require';
}

export interface BuildSources {
  options: ts.CompilerOptions;
  /** Every file the compiler reads from the project, relative to the root, sorted. */
  files: string[];
  /** Each package the compiled files load at run time, with where and how: a static or dynamic import, or a require made by createRequire. */
  packages: Map<string, PackageUse[]>;
}

/** The package a bare specifier names ('@scope/name/sub' is '@scope/name'), or undefined for a Node built-in. */
export function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0]!)) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** True when TypeScript erases the import: `import type`, or named bindings that are all `type`. */
function typeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(node))
    return (
      node.isTypeOnly ||
      (node.exportClause !== undefined &&
        ts.isNamedExports(node.exportClause) &&
        node.exportClause.elements.length > 0 &&
        node.exportClause.elements.every((e) => e.isTypeOnly))
    );
  const clause = node.importClause;
  if (clause === undefined) return false;
  if (clause.isTypeOnly) return true;
  const named = clause.namedBindings;
  return clause.name === undefined && named !== undefined && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly);
}

interface Specifier {
  specifier: string;
  how: PackageUse['how'];
  /** Erased by the compiler: needed to compile, not to run. */
  typeOnly: boolean;
}

/** The specifiers of a file: imports and re-exports, import('x') in code and in types, and createRequire(...)('x'). */
function specifiersOf(file: string): Specifier[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: Specifier[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ specifier: node.moduleSpecifier.text, how: 'import', typeOnly: typeOnly(node) });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push({ specifier: node.argument.literal.text, how: 'import', typeOnly: true });
    } else if (ts.isCallExpression(node) && node.arguments.length === 1 && ts.isStringLiteral(node.arguments[0]!)) {
      const callee = node.expression;
      const isImport = callee.kind === ts.SyntaxKind.ImportKeyword;
      const isCreatedRequire = ts.isCallExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === 'createRequire';
      if (isImport || isCreatedRequire) found.push({ specifier: node.arguments[0].text, how: isImport ? 'import' : 'require', typeOnly: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The source a relative specifier names under NodeNext resolution: './x.js' is x.ts (or x.d.ts), './y.json' is y.json. */
function resolveRelative(from: string, specifier: string, root: string): string {
  const target = resolve(dirname(from), specifier);
  const js = /^(.*)\.([cm]?)js$/.exec(target);
  const candidates = js ? [`${js[1]}.${js[2]}ts`, `${js[1]}.d.${js[2]}ts`] : [target];
  const found = candidates.find((candidate) => existsSync(candidate));
  if (found === undefined) throw new Error(`${relative(root, from)}: ${specifier} does not resolve`);
  return found;
}

/** The files and run-time packages of a tsconfig (e.g. tsconfig.build.json) under root. */
export function buildSources(root: string, project: string): BuildSources {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, project),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error(`${project} could not be read`);
  const seen = new Set<string>();
  const packages = new Map<string, PackageUse[]>();
  const queue = [...config.fileNames];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    if (file.endsWith('.d.ts')) continue;
    for (const { specifier, how, typeOnly } of specifiersOf(file)) {
      if (specifier.startsWith('.')) {
        queue.push(resolveRelative(file, specifier, root));
      } else if (!typeOnly) {
        const name = packageOf(specifier);
        if (name !== undefined) packages.set(name, [...(packages.get(name) ?? []), { file: relative(root, file), how }]);
      }
    }
  }
  return { options: config.options, files: [...seen].map((f) => relative(root, f)).sort(), packages };
}
