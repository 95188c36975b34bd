"""Generate a monorepo of a given size for the scale benchmark, committed to a new git repository.

    python benchmarks/gen_monorepo.py DEST [--symbols 1000000] [--seed 0]

Packages in four languages (Python, Go, TypeScript, Java), a quarter of the files each, written
the way application code is: a module of constants, a class or struct with a constructor and
methods, free functions; bodies with branches and loops that call methods of their own class,
functions of their own file, and functions imported from sibling modules of the same package
(so the call graph has local, cross-file and unresolved calls, and hubs: a package's ``util``
module is imported by every other module of it). Identifiers are made of a few hundred everyday
words, so BM25 sees realistic term statistics. Deterministic for a seed.

The symbol count is estimated while writing (the definitions of each file, plus one chunk for
its imports and module-level code) and printed with the file and byte counts; the benchmark
reports the count the index actually holds.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import time
from pathlib import Path

VERBS = (
    "get set load save parse build fetch update validate render compute find create delete "
    "apply merge split format encode decode resolve register open close read write send "
    "receive convert check normalize collect filter sort group count scan index lookup "
    "refresh reset start stop retry schedule publish subscribe notify handle process emit"
).split()
NOUNS = (
    "user order invoice session token cache config record account payment address customer "
    "product item cart price discount tax report metric event message queue topic channel "
    "request response header body route handler client server connection pool worker job "
    "task batch file path buffer stream chunk page query filter result error status policy "
    "rule role permission group team project tenant region zone node cluster volume snapshot "
    "backup image template schema field column table row key value entry note comment tag"
).split()
ADJECTIVES = "pending active stale default local remote cached primary partial raw".split()
LANGUAGES = ("python", "go", "typescript", "java")
FILES_PER_PACKAGE = 24
METHODS = (6, 14)  # methods per class, uniform
FUNCTIONS = (4, 10)  # free functions per file
CONSTANTS = (2, 6)


class Names:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def words(self, n: int) -> list[str]:
        r = self.rng
        out = [r.choice(VERBS)]
        if n > 2:
            out.append(r.choice(ADJECTIVES))
        out += [r.choice(NOUNS) for _ in range(n - len(out))]
        return out

    def snake(self, n: int = 2) -> str:
        return "_".join(self.words(n))

    def camel(self, n: int = 2) -> str:
        w = self.words(n)
        return w[0] + "".join(x.title() for x in w[1:])

    def pascal(self, n: int = 2) -> str:
        return "".join(x.title() for x in self.words(n))

    def type_name(self) -> str:
        r = self.rng
        return r.choice(NOUNS).title() + r.choice(
            ("Service", "Store", "Cache", "Manager", "Client")
        )

    def const(self) -> str:
        r = self.rng
        return f"{r.choice(ADJECTIVES)}_{r.choice(NOUNS)}_{r.choice(('limit', 'size', 'name', 'timeout'))}".upper()

    def sentence(self) -> str:
        w = self.words(self.rng.randint(3, 6))
        return (" ".join(w) + " for the " + self.rng.choice(NOUNS)).capitalize() + "."


def unique(names: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for n in names:
        k = seen.get(n, 0)
        seen[n] = k + 1
        out.append(n if k == 0 else f"{n}{k + 1}")
    return out


class FilePlan:
    """What one file defines, decided before any file is written so imports point at names that
    exist."""

    def __init__(self, names: Names, lang: str, module: str) -> None:
        r = names.rng
        style = names.snake if lang == "python" else names.camel
        self.module = module
        self.cls = names.type_name()
        self.methods = unique([style(r.randint(2, 3)) for _ in range(r.randint(*METHODS))])
        pub = names.pascal if lang == "go" else style
        self.functions = unique([pub(r.randint(2, 3)) for _ in range(r.randint(*FUNCTIONS))])
        self.constants = unique([names.const() for _ in range(r.randint(*CONSTANTS))])
        self.fields = unique([r.choice(NOUNS) for _ in range(r.randint(2, 4))])

    @property
    def symbols(self) -> int:
        # class + constructor + methods + functions + constants (+ fields in Java) + one chunk
        return 2 + len(self.methods) + len(self.functions) + len(self.constants) + 1


def body_lines(names: Names, plan: FilePlan, imported: list[tuple[str, str]], lang: str, me: str):
    """Statements of a body: calls to own methods, own functions, imported functions."""
    r = names.rng
    calls = []
    for _ in range(r.randint(1, 4)):
        pick = r.random()
        if pick < 0.4:
            calls.append(f"{me}{r.choice(plan.methods)}")
        elif pick < 0.7 or not imported:
            calls.append(r.choice(plan.functions))
        else:
            mod, fn = r.choice(imported)
            calls.append(f"{mod}.{fn}" if lang in ("go", "java") else fn)
    return calls


def python_file(names: Names, plan: FilePlan, imports: list[FilePlan], package: str) -> str:
    r = names.rng
    out = [f'"""{names.sentence()}"""', ""]
    imported: list[tuple[str, str]] = []
    for other in imports:
        fns = r.sample(other.functions, min(2, len(other.functions)))
        out.append(f"from {package.replace('/', '.')}.{other.module} import {', '.join(fns)}")
        imported += [(other.module, f) for f in fns]
    out.append("")
    for c in plan.constants:
        out.append(f"{c} = {r.randint(1, 5000)}")
    out += ["", "", f"class {plan.cls}:", f'    """{names.sentence()}"""', ""]
    out.append(f"    def __init__(self, {', '.join(plan.fields)}):")
    out += [f"        self.{f} = {f}" for f in plan.fields]
    for m in plan.methods:
        arg = r.choice(NOUNS)
        out += ["", f"    def {m}(self, {arg}, limit={r.choice(plan.constants)}):"]
        if r.random() < 0.5:
            out.append(f'        """{names.sentence()}"""')
        calls = body_lines(names, plan, imported, "python", "self.")
        out.append(f"        result = {calls[0]}({arg})")
        out.append("        for entry in result or []:")
        out.append("            if entry is None or limit <= 0:")
        out.append("                continue")
        for c in calls[1:]:
            out.append(f"            entry = {c}(entry)")
        out.append("        return result")
    for fn in plan.functions:
        arg = r.choice(NOUNS)
        out += ["", "", f"def {fn}({arg}, options=None):"]
        if r.random() < 0.5:
            out.append(f'    """{names.sentence()}"""')
        calls = body_lines(names, plan, imported, "python", "")
        calls = [c for c in calls if "." not in c] or [plan.functions[0]]
        out.append("    if options is None:")
        out.append("        options = {}")
        for c in calls:
            out.append(f"    {arg} = {c}({arg}) if {arg} else {arg}")
        out.append(f"    return {arg}")
    return "\n".join(out) + "\n"


def go_file(names: Names, plan: FilePlan, imports: list[FilePlan], package: str) -> str:
    r = names.rng
    pkg = package.rsplit("/", 1)[-1]
    out = [f"// Package {pkg}: {names.sentence()}", f"package {pkg}", "", "import (", '\t"fmt"']
    out.append(")")
    imported = [(other.module, f) for other in imports for f in other.functions[:2]]
    out += ["", "const ("]
    for c in plan.constants:
        out.append(f"\t{names.pascal(2)}{c.title().replace('_', '')} = {r.randint(1, 5000)}")
    out += [")", ""]
    out.append(f"// {plan.cls} {names.sentence()}")
    out.append(f"type {plan.cls} struct {{")
    out += [f"\t{f.title()} string" for f in plan.fields]
    out += ["}", "", f"// New{plan.cls} makes a {plan.cls}."]
    out.append(f"func New{plan.cls}() *{plan.cls} {{")
    out += [f"\treturn &{plan.cls}{{}}", "}"]
    for m in plan.methods:
        arg = r.choice(NOUNS)
        name = m[0].upper() + m[1:]
        out += ["", f"// {name} {names.sentence()}"]
        out.append(f"func (s *{plan.cls}) {name}({arg} string) (string, error) {{")
        calls = body_lines(names, plan, [], "go", "s.")
        for c in calls:
            if c.startswith("s."):
                c = "s." + c[2].upper() + c[3:]
                out.append(f"\tif _, err := {c}({arg}); err != nil {{")
                out.append('\t\treturn "", fmt.Errorf("%s: %w", ' + arg + ", err)")
                out.append("\t}")
            else:
                out.append(f"\t{arg} = {c}({arg})")
        out.append(f"\treturn {arg}, nil")
        out.append("}")
    for fn in plan.functions:
        arg = r.choice(NOUNS)
        out += ["", f"// {fn} {names.sentence()}", f"func {fn}({arg} string) string {{"]
        for _ in range(r.randint(1, 3)):
            target = r.choice(plan.functions)
            if imported and r.random() < 0.3:
                target = r.choice(imported)[1]
            out.append(f"\tif len({arg}) > {r.randint(1, 64)} {{")
            out.append(f"\t\t{arg} = {target}({arg}[1:])")
            out.append("\t}")
        out.append(f"\treturn {arg}")
        out.append("}")
    return "\n".join(out) + "\n"


def ts_file(names: Names, plan: FilePlan, imports: list[FilePlan], package: str) -> str:
    r = names.rng
    out = [f"/** {names.sentence()} */"]
    imported: list[tuple[str, str]] = []
    for other in imports:
        fns = r.sample(other.functions, min(2, len(other.functions)))
        out.append(f"import {{ {', '.join(fns)} }} from './{other.module}';")
        imported += [(other.module, f) for f in fns]
    out.append("")
    for c in plan.constants:
        out.append(f"export const {c} = {r.randint(1, 5000)};")
    out += ["", f"/** {names.sentence()} */", f"export class {plan.cls} {{"]
    out.append(f"  constructor({', '.join(f'private {f}: string' for f in plan.fields)}) {{}}")
    for m in plan.methods:
        arg = r.choice(NOUNS)
        out += ["", f"  /** {names.sentence()} */", f"  {m}({arg}: string): string {{"]
        for c in body_lines(names, plan, imported, "typescript", "this."):
            out.append(f"    if ({arg}.length > {r.randint(1, 64)}) {{")
            out.append(f"      {arg} = {c}({arg});")
            out.append("    }")
        out.append(f"    return {arg};")
        out.append("  }")
    out.append("}")
    for fn in plan.functions:
        arg = r.choice(NOUNS)
        out += ["", f"export function {fn}({arg}: string): string {{"]
        for c in body_lines(names, plan, imported, "typescript", ""):
            if c in plan.methods:
                c = plan.functions[0]
            out.append(f"  for (const part of {arg}.split('{r.choice('/.,:')}')) {{")
            out.append(f"    {arg} = {c}(part) || {arg};")
            out.append("  }")
        out.append(f"  return {arg};")
        out.append("}")
    return "\n".join(out) + "\n"


def java_file(names: Names, plan: FilePlan, imports: list[FilePlan], package: str) -> str:
    r = names.rng
    jpkg = package.replace("/", ".")
    out = [f"package {jpkg};", ""]
    imported = []
    for other in imports:
        out.append(f"import {jpkg}.{other.cls};")
        imported += [(other.cls, f) for f in other.functions[:2]]
    out += ["", f"/** {names.sentence()} */", f"public class {plan.cls} {{"]
    for c in plan.constants:
        out.append(f"    public static final int {c} = {r.randint(1, 5000)};")
    out += [f"    private String {f};" for f in plan.fields]
    out += ["", f"    public {plan.cls}() {{", f'        this.{plan.fields[0]} = "";', "    }"]
    for m in plan.methods:
        arg = r.choice(NOUNS)
        out += ["", f"    /** {names.sentence()} */", f"    public String {m}(String {arg}) {{"]
        for c in body_lines(names, plan, imported, "java", "this."):
            out.append(f"        if ({arg}.length() > {r.randint(1, 64)}) {{")
            out.append(f"            {arg} = {c}({arg});")
            out.append("        }")
        out.append(f"        return {arg};")
        out.append("    }")
    for fn in plan.functions:
        arg = r.choice(NOUNS)
        out += ["", f"    public static String {fn}(String {arg}) {{"]
        target = r.choice(plan.functions)
        if imported and r.random() < 0.5:
            cls, f = r.choice(imported)
            target = f"{cls}.{f}"
        out.append(f"        while ({arg}.length() > {r.randint(1, 64)}) {{")
        out.append(f"            {arg} = {target}({arg}.substring(1));")
        out.append("        }")
        out.append(f"        return {arg};")
        out.append("    }")
    out.append("}")
    return "\n".join(out) + "\n"


WRITERS = {
    "python": (python_file, ".py"),
    "go": (go_file, ".go"),
    "typescript": (ts_file, ".ts"),
    "java": (java_file, ".java"),
}


def generate(dest: Path, target: int, seed: int) -> dict:
    rng = random.Random(seed)
    names = Names(rng)
    symbols = files = size = 0
    n = 0
    while symbols < target:
        lang = LANGUAGES[n % len(LANGUAGES)]
        package = f"{lang}/{rng.choice(NOUNS)}{n // 7}/{names.snake(2)}{n}"
        if lang == "go":
            package = package.replace("_", "")
        write, ext = WRITERS[lang]
        plans = []
        for i in range(FILES_PER_PACKAGE):
            stem = "util" if i == 0 else f"{names.snake(2)}_{i}"
            plans.append(FilePlan(names, lang, stem))
        plans[0].cls = "Util" + plans[0].cls
        for i, plan in enumerate(plans):
            if lang == "java":
                plan.cls = f"{plan.cls}{i}"
                plan.module = plan.cls
        folder = dest / package
        folder.mkdir(parents=True, exist_ok=True)
        for i, plan in enumerate(plans):
            others = [plans[0]] if i else []
            others += rng.sample(plans[1:], 2)
            others = [o for o in others if o is not plan]
            text = write(names, plan, others, package)
            (folder / f"{plan.module}{ext}").write_text(text)
            files += 1
            size += len(text)
            symbols += plan.symbols + (len(plan.fields) if lang == "java" else 0)
        n += 1
    return {"files": files, "bytes": size, "estimated_symbols": symbols, "packages": n}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dest", type=Path)
    ap.add_argument("--symbols", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    if args.dest.exists() and any(args.dest.iterdir()):
        raise SystemExit(f"{args.dest} is not empty")
    args.dest.mkdir(parents=True, exist_ok=True)
    t = time.perf_counter()
    info = generate(args.dest, args.symbols, args.seed)
    git = ["git", "-C", str(args.dest), "-c", "user.name=gen", "-c", "user.email=gen@example.com"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "generated monorepo"], check=True)
    info["seconds"] = round(time.perf_counter() - t, 1)
    print(json.dumps(info))


if __name__ == "__main__":
    main()
