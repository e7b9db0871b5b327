import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

/** One piece of text a user can read: a string literal, a template (its expressions as `${}`) or JSX text. */
export interface UiString {
  file: string;
  line: number;
  text: string;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

function textOf(node: ts.Node): string | null {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
    const parent = node.parent;
    // module names and type-level strings are not shown to anyone
    if (ts.isImportDeclaration(parent) || ts.isExportDeclaration(parent) || ts.isLiteralTypeNode(parent)) return null;
    return node.text;
  }
  if (ts.isTemplateExpression(node))
    return node.head.text + node.templateSpans.map((span) => `\${}${span.literal.text}`).join("");
  if (ts.isJsxText(node)) return node.text;
  return null;
}

/** Every string the files under `roots` (relative to `root`) can show: pages, shared labels, reports, the CLI. */
export function uiStrings(root: string, roots: readonly string[]): UiString[] {
  const found: UiString[] = [];
  for (const file of roots.flatMap((dir) => sourceFiles(path.join(root, dir)))) {
    const kind = file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
    const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true, kind);
    const visit = (node: ts.Node): void => {
      const text = textOf(node);
      if (text !== null)
        found.push({
          file: path.relative(root, file),
          line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1,
          text,
        });
      if (ts.isTemplateExpression(node)) for (const span of node.templateSpans) visit(span.expression);
      else ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}
