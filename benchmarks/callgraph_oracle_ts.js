// The TypeScript compiler as a call-graph oracle, for benchmarks/callgraph_oracle.py.
//
//   NODE_PATH=/work/oracle-node/node_modules node benchmarks/callgraph_oracle_ts.js ROOT SUBDIR
//
// Every .ts/.tsx file under ROOT/SUBDIR (no .d.ts) becomes a root of one program
// (ts.createProgram, strict, bundler resolution); for each call, `new` and decorator, the
// checker's symbol of the callee's last name (aliases followed) gives its declarations. Prints a
// JSON array: {path, line, kind, callee, where, col, decls: [{path, line, name, kind}] | null,
// external: [...]} with paths relative to ROOT and 1-based lines (line: the call's first line).
"use strict";
const ts = require("typescript");
const fs = require("fs");
const path = require("path");

const [root, subdir] = process.argv.slice(2);
const absRoot = fs.realpathSync(root);

function walkDir(dir, out) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === "node_modules" || e.name.startsWith(".")) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walkDir(p, out);
    else if (/\.(ts|tsx)$/.test(e.name) && !e.name.endsWith(".d.ts")) out.push(p);
  }
  return out;
}

const files = walkDir(path.join(absRoot, subdir), []).sort();
const program = ts.createProgram(files, {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  jsx: ts.JsxEmit.Preserve,
  allowJs: true,
  strict: true,
  skipLibCheck: true,
  noEmit: true,
  lib: ["lib.es2023.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
});
const checker = program.getTypeChecker();

function rel(file) {
  const r = path.relative(absRoot, file);
  return r.startsWith("..") || r.includes("node_modules") ? null : r.split(path.sep).join("/");
}

function lineOf(sf, pos) {
  return sf.getLineAndCharacterOfPosition(pos).line + 1;
}

function answer(nameNode) {
  let sym = checker.getSymbolAtLocation(nameNode);
  if (!sym) return { decls: null, external: [] };
  if (sym.flags & ts.SymbolFlags.Alias) {
    try {
      sym = checker.getAliasedSymbol(sym);
    } catch (e) {
      return { decls: null, external: [] };
    }
  }
  const decls = [];
  const external = [];
  for (const d of sym.declarations || []) {
    const sf = d.getSourceFile();
    const r = rel(sf.fileName);
    if (r === null || r.endsWith(".d.ts")) {
      const ext = `${path.basename(sf.fileName)}:${sym.name}`;
      if (!external.includes(ext)) external.push(ext);
      continue;
    }
    const at = d.name ? d.name.getStart(sf) : d.getStart(sf);
    decls.push({ path: r, line: lineOf(sf, at), name: sym.name, kind: ts.SyntaxKind[d.kind] });
  }
  return { decls: decls.length ? decls : null, external };
}

const out = [];
for (const sf of program.getSourceFiles()) {
  if (!files.includes(sf.fileName)) continue;
  const p = rel(sf.fileName);
  const visit = (node, where) => {
    let callee = null;
    let kind = "call";
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) callee = node.expression;
    else if (ts.isDecorator(node)) {
      kind = "decorator";
      callee = ts.isCallExpression(node.expression) ? node.expression.expression : node.expression;
    }
    if (callee !== null && callee.kind !== ts.SyntaxKind.SuperKeyword) {
      let nameNode = null;
      if (ts.isPropertyAccessExpression(callee)) nameNode = callee.name;
      else if (ts.isIdentifier(callee)) nameNode = callee;
      const start = node.getStart(sf);
      const rec = {
        path: p,
        line: lineOf(sf, start),
        kind,
        callee: callee.getText(sf).replace(/\s+/g, " ").slice(0, 200),
        where,
        col: nameNode ? sf.getLineAndCharacterOfPosition(nameNode.getStart(sf)).character : null,
        decls: null,
        external: [],
      };
      if (nameNode) Object.assign(rec, answer(nameNode));
      out.push(rec);
    }
    let inner = where;
    if (ts.isFunctionLike(node)) {
      // A named function, method or one bound to a name is a symbol; an anonymous callback
      // (`test("...", async () => {...})`) belongs to the code around it.
      const named =
        !ts.isArrowFunction(node) && !ts.isFunctionExpression(node)
          ? true
          : node.parent &&
            (ts.isVariableDeclaration(node.parent) ||
              ts.isPropertyAssignment(node.parent) ||
              ts.isPropertyDeclaration(node.parent));
      if (named) inner = "function";
      else if (where === "module" || where === "class body") inner = `${where}, in a callback`;
    }
    else if (ts.isClassLike(node)) inner = "class body";
    ts.forEachChild(node, (c) => visit(c, inner));
  };
  ts.forEachChild(sf, (c) => visit(c, "module"));
}
process.stdout.write(JSON.stringify(out));
