"""Incremental call resolution (graph/incremental.py) against the full resolution, its reference.

Two histories: generated edits of the call-graph suite's programs resolved as one repository
(definitions renamed, moved between files, removed and added; bases, imports, ``__all__`` and
whole files changed), and the real history of this project's own package. At every step the
update's graph (edges with their resolution, call counts, call-site counts per language) must be
the full resolution's exactly.
"""

from __future__ import annotations

import random
import re
import subprocess
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from codebot.core.model import FileResult
from codebot.graph.analytics import build_graph
from codebot.graph.incremental import Previous, merged_graph, pack_file_sites, resolve_changed
from codebot.graph.resolve import resolve
from codebot.parse.extract import module_ids, parse_source

ROOT = Path(__file__).resolve().parent.parent
SUITE = ROOT / "tests" / "fixtures" / "callgraph"


def parsed(sources: dict[str, str]) -> list[FileResult]:
    """The repository's files parsed, in path order (as a build lists them)."""
    paths = sorted(sources)
    modules = module_ids(paths)
    return [parse_source(p, sources[p].encode(), "python", module=modules[p]) for p in paths]


def graph_of(files: list[FileResult]):
    """(the graph as a build stores it, the symbols) of a full resolution."""
    symbols = [s for f in files for s in f.symbols]
    res = resolve(files)
    graph = build_graph(symbols, res.edges, res.external, res.unresolved, analyze=False)
    graph.file_sites = pack_file_sites(res.by_file)
    graph.meta["call_sites"] = res.stats
    graph.meta["call_sites_by_language"] = res.by_language
    return graph, symbols


def described(graph, symbols) -> dict:
    ids = [s.id for s in symbols]
    return {
        "edges": sorted(
            (e.src, e.dst, e.kind, e.line, e.resolution) for e in graph.to_edges(symbols)
        ),
        "external": {ids[i]: int(c) for i, c in enumerate(graph.external) if c},
        "unresolved": {ids[i]: int(c) for i, c in enumerate(graph.unresolved) if c},
        "call_sites": graph.meta["call_sites"],
        "by_language": graph.meta["call_sites_by_language"],
        "dropped": graph.meta["dropped_edges"],
    }


def incremental_step(before: list[FileResult], after: list[FileResult], changed: set[str]):
    """The update's graph of ``after`` from ``before``'s, and how many files it resolved."""
    graph, symbols = graph_of(before)
    old = {f.path: f for f in before}
    previous = Previous(
        graph, [s.id for s in symbols], [s.path for s in symbols], {p: old.get(p) for p in changed}
    )
    found = resolve_changed(after, previous, changed)
    assert found is not None
    res, affected = found
    new_symbols = [s for f in after for s in f.symbols]
    g = merged_graph(new_symbols, res, previous, affected)
    g.meta["call_sites"], g.meta["call_sites_by_language"] = res.stats, res.by_language
    # As an update merges: through the base row of each new row, without dicts of every id.
    row_of = {sid: row for row, sid in enumerate(previous.ids)}
    mapped = replace(
        previous,
        old_rows=np.array([row_of.get(s.id, -1) for s in new_symbols], dtype=np.int64),
        row_of=row_of,
    )
    g2 = merged_graph(new_symbols, res, mapped, affected)
    g2.meta["call_sites"], g2.meta["call_sites_by_language"] = res.stats, res.by_language
    assert described(g2, new_symbols) == described(g, new_symbols)
    return described(g, new_symbols), len(affected)


def assert_same_as_full(before, after, changed) -> int:
    got, resolved = incremental_step(before, after, changed)
    want = described(*graph_of(after))
    for key in want:
        assert got[key] == want[key], key
    return resolved


def suite_sources() -> dict[str, str]:
    return {p.relative_to(SUITE).as_posix(): p.read_text() for p in sorted(SUITE.rglob("*.py"))}


def _rename_definition(text: str, rng: random.Random) -> str:
    names = re.findall(r"^\s*def (\w+)\(", text, re.M)
    if not names:
        return text
    name = rng.choice(names)
    return re.sub(rf"\bdef {name}\(", f"def {name}_renamed(", text, count=1)


def _drop_a_definition(text: str, rng: random.Random) -> str:
    blocks = list(re.finditer(r"^(class|def) \w+.*?(?=^\S|\Z)", text, re.M | re.S))
    if not blocks:
        return text
    b = rng.choice(blocks)
    return text[: b.start()] + text[b.end() :]


def _change_bases(text: str, rng: random.Random) -> str:
    classes = re.findall(r"^class (\w+)", text, re.M)
    if not classes:
        return text
    cls = rng.choice(classes)
    return re.sub(rf"^class {cls}\b[^:]*:", f"class {cls}(dict):", text, count=1, flags=re.M)


def _drop_an_import(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    imports = [i for i, line in enumerate(lines) if re.match(r"(from \S+ )?import ", line)]
    if not imports:
        return text
    del lines[rng.choice(imports)]
    return "\n".join(lines)


def _set_all(text: str, rng: random.Random) -> str:
    names = re.findall(r"^(?:def|class) (\w+)", text, re.M)
    keep = [n for n in names if rng.random() < 0.5]
    return text + f"\n__all__ = {keep!r}\n"


def _edit_a_body(text: str, rng: random.Random) -> str:
    """A call added inside a function's body: no declaration changes."""
    bodies = list(re.finditer(r"^\s*def \w+\(.*\):[^\n]*\n(\s+)", text, re.M))
    names = re.findall(r"^\s*def (\w+)\(", text, re.M)
    if not bodies:
        return text
    m = rng.choice(bodies)
    return text[: m.end()] + f"{rng.choice(names)}()\n{m.group(1)}" + text[m.end() :]


EDITS = [
    _rename_definition,
    _drop_a_definition,
    _change_bases,
    _drop_an_import,
    _set_all,
    _edit_a_body,
    _edit_a_body,
]


@pytest.mark.parametrize("seed", range(4))
def test_generated_history_resolves_like_the_full_resolution(seed):
    rng = random.Random(seed)
    sources = suite_sources()
    files = parsed(sources)
    resolved_counts = []
    for _ in range(12):
        new = dict(sources)
        paths = sorted(new)
        changed = set()
        for _ in range(rng.randint(1, 3)):
            what = rng.random()
            path = rng.choice(paths)
            if what < 0.55:
                new[path] = rng.choice(EDITS)(new[path], rng)
            elif what < 0.7 and len(new) > 2:  # a file removed
                new.pop(path, None)
            elif what < 0.85:  # a file copied into another program (its names now ambiguous)
                other = rng.choice(paths).split("/")[0]
                path = f"{other}/copy_{rng.randint(0, 99)}.py"
                new[path] = sources[rng.choice(paths)]
            else:  # a file's content replaced by another's: definitions move
                new[path] = sources[rng.choice(paths)]
            changed.add(path)
        changed = {p for p in changed if new.get(p) != sources.get(p)}
        after = parsed(new)
        resolved_counts.append(assert_same_as_full(files, after, changed))
        sources, files = new, after
    assert min(resolved_counts) < len(files) / 2  # steps that resolved part of the repository


def test_a_new_definition_captures_calls_of_unchanged_files():
    """A method added in one file becomes the unique target of ``x.name()`` calls in a file
    that did not change and does not import it (it reaches it through another module): that
    file is resolved again, by the name."""
    base = {
        "pkg/__init__.py": "",
        "pkg/store.py": "class Store:\n    def load(self):\n        return 1\n",
        "app/__init__.py": "",
        "app/mid.py": "from pkg.store import Store\n",
        "app/use.py": "from app import mid\n\n\ndef run(x):\n    return x.persist_all()\n",
        "pkg/other.py": "def unrelated():\n    return 2\n",
    }
    after = dict(base)
    after["pkg/store.py"] += "\n    def persist_all(self):\n        return 2\n"
    before_files, after_files = parsed(base), parsed(after)
    resolved = assert_same_as_full(before_files, after_files, {"pkg/store.py"})
    got, _ = incremental_step(before_files, after_files, {"pkg/store.py"})
    assert ("app.use.run", "pkg.store.Store.persist_all", "calls", 5, "unique_name") in {
        tuple(e) for e in got["edges"]
    }
    assert resolved == 3  # store.py, mid.py (imports it), use.py (names it); the others kept


def test_an_edit_inside_a_body_resolves_that_file_alone():
    """Lines below the edit shift (an import's, a chunk's): nothing other files see."""
    a = "class A:\n    def ping(self):\n        return 1\n\n\nimport os\nx = os.sep\n"
    base = {"a.py": a, "b.py": "from a import A\n\n\ndef run():\n    return A().ping()\n"}
    after = dict(base, **{"a.py": a.replace("return 1", "print(1)\n        return 1")})
    assert assert_same_as_full(parsed(base), parsed(after), {"a.py"}) == 1


def test_a_changed_base_reaches_calls_in_subclasses_elsewhere():
    """``D(C)``, ``C(B)``, ``B(A)``: B drops its base, so ``self.ping()`` in D (which names
    neither B nor anything B defines) no longer reaches A's method."""
    base = {
        "a.py": "class A:\n    def ping(self):\n        return 1\n",
        "b.py": "from a import A\n\n\nclass B(A):\n    pass\n",
        "c.py": "from b import B\n\n\nclass C(B):\n    pass\n",
        "d.py": "from c import C\n\n\nclass D(C):\n    def go(self):\n        return self.ping()\n",
    }
    after = dict(base, **{"b.py": "from a import A\n\n\nclass B:\n    pass\n"})
    got, resolved = incremental_step(parsed(base), parsed(after), {"b.py"})
    assert not [e for e in got["edges"] if e[0] == "d.D.go" and e[2] == "calls"]
    assert_same_as_full(parsed(base), parsed(after), {"b.py"})


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout


def test_real_history_of_this_package_resolves_like_the_full_resolution():
    """The last commits of codebot's own history that touched its package, replayed."""
    try:
        commits = _git("rev-list", "--first-parent", "-n", "13", "HEAD", "--", "codebot").split()
    except (subprocess.CalledProcessError, FileNotFoundError):
        pytest.skip("not a git checkout")
    if len(commits) < 4:
        pytest.skip("too little history")
    commits.reverse()

    def sources_at(commit: str) -> dict[str, str]:
        paths = [
            p
            for p in _git("ls-tree", "-r", "--name-only", commit, "codebot").split()
            if p.endswith(".py")
        ]
        return {p: _git("show", f"{commit}:{p}") for p in paths}

    sources = sources_at(commits[0])
    files = parsed(sources)
    partial = 0
    for commit in commits[1:]:
        new = sources_at(commit)
        changed = {p for p in new.keys() | sources.keys() if new.get(p) != sources.get(p)}
        after = parsed(new)
        partial += assert_same_as_full(files, after, changed) < len(after)
        sources, files = new, after
    assert partial > 0


def test_a_base_without_usable_counts_is_resolved_whole():
    """A graph built before per-file counts were kept, or with a malformed record (an
    artifact from elsewhere), gives no incremental resolution: the caller resolves it all."""
    files = parsed({"a.py": "def f():\n    return g()\n\n\ndef g():\n    return 1\n"})
    graph, symbols = graph_of(files)
    previous = Previous(graph, [s.id for s in symbols], [s.path for s in symbols], {})
    graph.file_sites = {"keys": ["calls", "bogus"], "languages": [], "paths": [], "rows": b""}
    assert resolve_changed(files, previous, {"a.py"}) is None
    graph.file_sites = None
    assert resolve_changed(files, previous, {"a.py"}) is None


def test_a_module_that_stops_importing_narrows_the_reach_of_files_two_imports_away():
    """``x.zap()`` lands on the only ``zap`` when its module is within three imports of the
    caller (use -> top -> mid -> store); mid drops its import, and use.py, two imports away
    from mid and unchanged, loses the edge."""
    base = {
        "store.py": "class Store:\n    def zap(self):\n        return 1\n",
        "mid.py": "import store\n\n\ndef m():\n    return 1\n",
        "top.py": "import mid\n\n\ndef t():\n    return 1\n",
        "use.py": "import top\n\n\ndef run(x):\n    return x.zap()\n",
    }
    after = dict(base, **{"mid.py": "def m():\n    return 1\n"})
    before_graph, _ = incremental_step(parsed(base), parsed(base), set())
    assert ("use.run", "store.Store.zap", "calls", 5, "unique_name") in {
        tuple(e) for e in before_graph["edges"]
    }
    assert_same_as_full(parsed(base), parsed(after), {"mid.py"})


def test_a_type_that_drops_its_base_loses_the_inherited_members_everywhere():
    """``make().ping()`` names neither B nor anything changed: the edge to A.ping goes with B's
    base, through the old hierarchy's members."""
    base = {
        "a.py": "class A:\n    def ping(self):\n        return 1\n",
        "b.py": "from a import A\n\n\nclass B(A):\n    pass\n",
        "mk.py": "from b import B\n\n\ndef make() -> B:\n    return B()\n",
        "use.py": "from mk import make\n\n\ndef run():\n    return make().ping()\n",
    }
    after = dict(base, **{"b.py": "from a import A\n\n\nclass B:\n    pass\n"})
    before_graph, _ = incremental_step(parsed(base), parsed(base), set())
    assert ("use.run", "a.A.ping", "calls", 5, "exact") in {tuple(e) for e in before_graph["edges"]}
    assert_same_as_full(parsed(base), parsed(after), {"b.py"})
