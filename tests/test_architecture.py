"""The shape of the package, as ARCHITECTURE.md draws it: layers that only look down, no import
cycle (imports inside functions included), and names that cross a module boundary are public."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "codebot"

# Bottom first. A module may import its own layer and the ones before it, never one after.
LAYERS = ("core", "git", "languages", "parse", "embed", "graph", "index", "query", "share", "serve")
FACADE = {"codebot", "codebot.__main__"}  # the package's own entry points sit above every layer


@dataclass(frozen=True)
class ImportEdge:
    importer: str
    target: str  # a module of the package
    names: tuple[str, ...]  # the names taken from it ("from target import a, b"); () for "import"
    line: int


def modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports(mods: dict[str, Path]) -> Iterator[ImportEdge]:
    for name, path in mods.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    module = ".".join(base + ([node.module] if node.module else []))
                else:
                    module = node.module or ""
                if module not in mods:
                    continue
                taken = []
                for alias in node.names:
                    sub = f"{module}.{alias.name}"
                    if sub in mods:  # "from package import module"
                        yield ImportEdge(name, sub, (), node.lineno)
                    else:
                        taken.append(alias.name)
                yield ImportEdge(name, module, tuple(taken), node.lineno)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in mods:
                        yield ImportEdge(name, alias.name, (), node.lineno)


def layer_of(module: str) -> int | None:
    parts = module.split(".")
    return LAYERS.index(parts[1]) if len(parts) > 1 and parts[1] in LAYERS else None


def test_every_module_belongs_to_a_layer():
    stray = [m for m in modules() if m not in FACADE and layer_of(m) is None]
    assert not stray, f"modules outside every layer (add them to one, see ARCHITECTURE.md): {stray}"


def test_imports_never_point_up_a_layer():
    mods = modules()
    upward = [
        f"{e.importer}:{e.line} imports {e.target}"
        for e in imports(mods)
        if e.importer not in FACADE
        and layer_of(e.target) is not None
        and layer_of(e.target) > layer_of(e.importer)
    ]
    assert not upward, "imports that point up a layer:\n" + "\n".join(upward)
    into_facade = [f"{e.importer}:{e.line}" for e in imports(mods) if e.target in FACADE]
    assert not into_facade, f"modules importing the package's facade: {into_facade}"


def _graph(mods: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> modules its imports run: each target, and the packages above it (an import of
    ``a.b.c`` runs ``a/b/__init__.py`` too) unless the importer is inside them already (a
    package's ``__init__`` importing its own submodule is running already: no edge to itself)."""
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for e in imports(mods):
        if e.target != e.importer:
            graph[e.importer].add(e.target)
        parts = e.target.split(".")
        for i in range(2, len(parts)):
            above = ".".join(parts[:i])
            if above in mods and above != e.importer and not e.importer.startswith(above + "."):
                graph[e.importer].add(above)
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_import_cycle_even_inside_functions():
    cycle = _cycle(_graph(modules()))
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_cycle_finder_finds_one():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_a_package_importing_its_own_submodule_is_no_cycle(tmp_path):
    for rel, text in {
        "pkg/__init__.py": "def load():\n    from pkg.impl import Impl\n",
        "pkg/impl.py": "from pkg.base import Base\n",
        "pkg/base.py": "",
    }.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    mods = {"pkg": tmp_path / "pkg/__init__.py"}
    mods |= {f"pkg.{n}": tmp_path / f"pkg/{n}.py" for n in ("impl", "base")}
    assert _cycle(_graph(mods)) is None
    # ...but a submodule that imports the package's __init__ back closes one.
    (tmp_path / "pkg/impl.py").write_text("from pkg import load\n")
    assert _cycle(_graph(mods)) == ["pkg", "pkg.impl", "pkg"]


def _exports(path: Path) -> set[str] | None:
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            return set(ast.literal_eval(node.value))
    return None


@pytest.mark.parametrize("kind", ["private", "unlisted"])
def test_names_that_cross_modules_are_public_and_listed(kind):
    mods = modules()
    bad = set()
    for e in imports(mods):
        if e.importer in FACADE or e.target in FACADE:
            continue
        for name in e.names:
            if kind == "private" and name.startswith("_") and name != "__version__":
                bad.add(f"{e.importer}:{e.line} takes {e.target}.{name}")
            if kind == "unlisted" and not name.startswith("_"):
                listed = _exports(mods[e.target])
                if listed is None or name not in listed:
                    bad.add(f"{e.importer}:{e.line} takes {name}, not in {e.target}.__all__")
    assert not bad, "\n".join(sorted(bad))


def test_private_modules_stay_inside_their_package():
    crossing = set()
    for e in imports(modules()):
        package, _, leaf = e.target.rpartition(".")
        if leaf.startswith("_") and not leaf.startswith("__"):
            if e.importer != package and not e.importer.startswith(package + "."):
                crossing.add(f"{e.importer}:{e.line} imports the private module {e.target}")
    assert not crossing, "\n".join(sorted(crossing))


def test_pygit2_is_used_only_by_the_git_layer():
    users = set()
    for name, path in modules().items():
        if name.startswith("codebot.git."):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import) and any(a.name == "pygit2" for a in node.names):
                users.add(name)
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pygit2"):
                users.add(name)
            elif (
                isinstance(node, ast.Attribute)
                and node.attr == "git"
                and (isinstance(node.value, ast.Name) and node.value.id == "repo")
            ):
                users.add(name)  # repo.git: the pygit2 object behind git.repo.Repo
    assert not users, f"pygit2 used outside codebot/git: {sorted(users)}"


def test_every_codebot_error_is_defined_in_the_one_error_tree():
    from codebot.core import errors

    tree = set(errors.__all__)
    elsewhere = []
    for name, path in modules().items():
        if name == "codebot.core.errors":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                bases = {
                    b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases
                }
                if bases & tree:
                    elsewhere.append(f"{name}.{node.name}")
    assert not elsewhere, f"errors defined outside codebot/core/errors.py: {elsewhere}"
