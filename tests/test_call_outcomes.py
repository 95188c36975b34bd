"""Every call accounted for: the reason a call has no edge (external, dynamic, ambiguous,
unknown), the outcome counts per language, no name fallback on a library's value, and the
``override`` edges of a call on a declared type. Real snippets, resolved as ``codebot index``
resolves them."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from click.testing import CliRunner

from codebot.core.config import Config
from codebot.core.model import RESOLUTIONS
from codebot.graph.resolve import CALL_SITE_KEYS, internal_rate, resolve
from codebot.graph.resolvers import FAMILY, NameTable, resolver_class
from codebot.index.build import build_index
from codebot.parse.extract import module_id, parse_source
from codebot.serve.cli import main

_LANG = {".py": "python", ".php": "php", ".rb": "ruby", ".java": "java", ".go": "go"}
_LANG |= {".rs": "rust", ".js": "javascript"}


def _files(files: dict[str, str]):
    return [
        parse_source(
            p, textwrap.dedent(c).lstrip("\n").encode(), _LANG[Path(p).suffix], module=module_id(p)
        )
        for p, c in files.items()
    ]


def outcomes(files: dict[str, str]) -> dict[tuple[str, str], object]:
    """(caller id, call text) -> what the resolver made of it: edges or a reason."""
    parsed = _files(files)
    index = NameTable(parsed)
    out: dict[tuple[str, str], object] = {}
    for family in {FAMILY[f.language] for f in parsed}:
        mine = [f for f in parsed if FAMILY[f.language] == family]
        r = resolver_class(family)(index, mine)
        r.prepare()
        for f in mine:
            for s in f.symbols:
                if s.calls and (s.kind != "chunk" or r.module_calls):
                    ctx = r.context(s, f)
                    for c in s.calls:
                        out[(s.id, c.name)] = r.resolve_call(ctx, c.name)
    return out


def call_edges(files: dict[str, str]) -> dict[tuple[str, str], str]:
    return {(e.src, e.dst): e.resolution for e in resolve(_files(files)).edges if e.kind == "calls"}


PYTHON = {
    "app/core.py": """
        import importlib
        from collections import OrderedDict

        class Handler:
            def log_exception(self):
                pass

            def dispatch(self, name, text: str, table: OrderedDict, anything):
                getattr(self, name)(1)
                self.handlers[name](text)
                importlib.import_module(name).setup()
                table.log_exception()
                text.log_exception()
                anything.log_exception()
                anything.render()
                anything.flush()
                print(text)

        class Page:
            def render(self):
                pass

        class Report:
            def render(self):
                pass
        """,
}


def test_python_calls_without_an_edge_have_a_reason():
    got = outcomes(PYTHON)
    d = "app.core.Handler.dispatch"
    assert got[(d, "getattr(self, name)")] == "dynamic"  # a method looked up by name, called
    assert got[(d, "self.handlers[name]")] == "dynamic"  # a call of a subscript
    assert got[(d, "importlib.import_module(name).setup")] == "dynamic"
    # A parameter of a library type (the standard library's, a builtin): never a name match,
    # though the repository has exactly one `log_exception`.
    assert got[(d, "table.log_exception")] == "external"
    assert got[(d, "text.log_exception")] == "external"
    # A parameter of unknown type: the only definition of the name is still the fallback.
    assert got[(d, "anything.log_exception")] == [("app.core.Handler.log_exception", "unique_name")]
    assert got[(d, "anything.render")] == "ambiguous"  # Page.render or Report.render
    assert got[(d, "anything.flush")] == "external"  # defined nowhere in the repository
    assert got[(d, "print")] == "external"


def test_what_a_library_method_returns_may_be_ours():
    """flask: `ctx.ensure_object(ScriptInfo).load_app()` on a `click.Context`: the library's
    method returns one of ours, so past the first member the value is of unknown type."""
    got = outcomes(
        {
            "src/flask/cli.py": """
                import click

                class ScriptInfo:
                    def load_app(self):
                        pass

                def decorator(ctx: click.Context):
                    ctx.ensure_object(ScriptInfo).load_app()
                    ctx.load_app()
                """
        }
    )
    d = "src.flask.cli.decorator"
    assert got[(d, "ctx.ensure_object(ScriptInfo).load_app")] == [
        ("src.flask.cli.ScriptInfo.load_app", "unique_name")
    ]
    assert got[(d, "ctx.load_app")] == got[(d, "ctx.ensure_object")] == "external"


def test_counts_per_language_add_up():
    files = {
        **PYTHON,
        "web/Router.php": """
            <?php
            class Router {
                function route($name, $handler) {
                    $this->$name();
                    call_user_func([$this, 'route']);
                    $handler();
                    $this->route('x', null);
                    strlen($name);
                }
            }
            """,
    }
    res = resolve(_files(files))
    php, py = res.by_language["php"], res.by_language["python"]
    assert php["dynamic"] == 3  # a computed name, call_user_func, a variable called
    assert php["exact"] == php["resolved"] == 1 and php["external"] == 1
    assert py["dynamic"] == 3 and py["ambiguous"] == 1 and py["unique_name"] == 1
    for counts in (php, py, res.stats):
        assert set(counts) == set(CALL_SITE_KEYS)
        resolved = sum(counts[k] for k in ("exact", "override", "overload", "unique_name"))
        assert counts["resolved"] == resolved
        reasons = sum(counts[k] for k in ("external", "dynamic", "ambiguous", "unknown"))
        assert counts["calls"] == counts["resolved"] + reasons + counts["ignored"]
        assert counts["unresolved"] == reasons - counts["external"]
    assert res.stats["calls"] == php["calls"] + py["calls"]
    # Per caller, what has no edge and is no library call is counted unresolved.
    assert sum(res.unresolved.values()) == res.stats["unresolved"]
    assert sum(res.external.values()) == res.stats["external"]
    into = py["calls"] - py["external"] - py["dynamic"] - py["ignored"]
    assert internal_rate(py) == round(py["resolved"] / into, 4)


def test_reflection_in_other_languages_is_dynamic():
    got = outcomes(
        {
            "lib/base.rb": """
                class Base
                  def call(env)
                    send(:route, env)
                    public_send(env[:verb])
                    __send__(:route, env)
                  end
                  def route(env); end
                end
                """,
            "src/Invoker.java": """
                package app;
                import java.lang.reflect.Method;
                class Invoker {
                  Object run(Method m, Object target, String name) throws Exception {
                    m.invoke(target);
                    return target.getClass().getMethod(name).invoke(target);
                  }
                }
                """,
            "cmd/main.go": """
                package main
                import ("fmt"; "reflect")
                type S struct{}
                func (s *S) Run(name string, fns map[string]func()) {
                  reflect.ValueOf(s).MethodByName(name).Call(nil)
                  fns[name]()
                  fmt.Println(name)
                }
                """,
        }
    )
    by_text = {text: out for (_, text), out in got.items()}
    assert by_text["send"] == by_text["public_send"] == "dynamic"
    assert by_text["__send__"] == "dynamic"
    # `m.invoke(target)` (m a declared Method), and `invoke` at the end of a chain; Java calls
    # end with their arguments' types (`invoke/(Object)`)
    assert [v for k, v in by_text.items() if k.endswith("invoke/(Object)")] == ["dynamic"] * 2
    assert by_text["reflect.ValueOf(s).MethodByName(name).Call"] == "dynamic"
    assert by_text["fns[name]"] == "dynamic"
    assert by_text["fmt.Println"] == "external"


def test_a_name_several_classes_define_is_ambiguous():
    """`lookup(..).save(x)`: the receiver is a library call's value of no written type, two
    unrelated classes define `save`, and nothing picks one."""
    got = outcomes(
        {
            "src/Users.java": "class Users { void save(Object o) {} }",
            "src/Orders.java": "class Orders { void save(Object o) {} }",
            "src/Service.java": """
                class Service {
                  void run() {
                    Registry.lookup("users").save(1);
                    Registry.lookup("users").flushAll();
                  }
                }
                """,
        }
    )
    assert got[("src.Service.Service.run", 'Registry.lookup("users").save/(int)')] == "ambiguous"
    flush = 'Registry.lookup("users").flushAll/()'
    assert got[("src.Service.Service.run", flush)] == "external"  # defined nowhere here


def test_no_name_fallback_on_a_library_value():
    """gson: `baseType.isAssignableFrom` on a `Class<?>` is the JDK's, not the one method of
    that name in the repository (TypeToken.isAssignableFrom); Rust: a `Vec` is the library's."""
    edges = call_edges(
        {
            "gson/TypeToken.java": """
                package com.google.gson.reflect;
                import java.lang.reflect.Type;
                public class TypeToken<T> {
                  private final Class<? super T> rawType;
                  public boolean isAssignableFrom(Class<?> cls) {
                    return rawType.isAssignableFrom(cls);
                  }
                  private static boolean isAssignableFrom(Type from, Class<?> baseType) {
                    return baseType.isAssignableFrom(from.getClass());
                  }
                }
                """,
            "src/lib.rs": """
                pub struct Buf { data: Vec<u8> }
                impl Buf {
                    pub fn truncate(&mut self) {}
                }
                fn shrink(v: Vec<u8>) {
                    let mut w: Vec<u8> = Vec::new();
                    w.truncate(0);
                    v.len();
                }
                """,
        }
    )
    assert not [k for k in edges if k[1].endswith("TypeToken.isAssignableFrom")]
    assert not [k for k in edges if k[0] == "src.lib.shrink"]


FLASK = {
    "src/flask/app.py": """
        class App:
            def handle_exception(self, e):
                self.log_exception(e)

            def log_exception(self, e):
                pass
        """,
    "tests/test_subclassing.py": """
        from flask.app import App

        class SuppressedFlask(App):
            def log_exception(self, e):
                pass
        """,
    "src/flask/views.py": """
        import abc

        class View(abc.ABC):
            def dispatch(self):
                return self.handle()

            @abc.abstractmethod
            def handle(self):
                ...

        class Home(View):
            def handle(self):
                pass
        """,
}


def test_a_call_on_a_declared_type_marks_the_overrides():
    """flask: `self.log_exception()` in App binds App.log_exception (exact); a test's subclass
    overriding it is a possible runtime target, marked `override`. An abstract method never
    runs: only its overrides are reached."""
    assert "override" in RESOLUTIONS and RESOLUTIONS[:3] == ("exact", "unique_name", "overload")
    edges = call_edges({p.replace("src/", ""): c for p, c in FLASK.items()})
    h = "flask.app.App.handle_exception"
    assert edges[(h, "flask.app.App.log_exception")] == "exact"
    assert edges[(h, "tests.test_subclassing.SuppressedFlask.log_exception")] == "override"
    assert edges[("flask.views.View.dispatch", "flask.views.Home.handle")] == "override"
    assert ("flask.views.View.dispatch", "flask.views.View.handle") not in edges


def _repo(tmp_path: Path, files: dict[str, str]) -> Path:
    import subprocess

    for path, code in files.items():
        f = tmp_path / path
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(textwrap.dedent(code).lstrip("\n"))
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "add", "-A"], check=True)
    subprocess.run(
        [
            "git",
            "-C",
            str(tmp_path),
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "x",
        ],
        check=True,
    )
    return tmp_path


def test_stats_callers_and_chain_show_outcomes_and_overrides(tmp_path, monkeypatch, validate):
    repo = _repo(tmp_path, {**FLASK, **PYTHON})
    build_index(repo, Config(embedder="none"))
    monkeypatch.chdir(repo)
    runner = CliRunner()

    out = runner.invoke(main, ["stats", "--json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.output)
    validate(doc, "stats.schema.json")
    py = doc["languages"]["python"]["calls"]
    # `anything.log_exception` is ambiguous now: App, SuppressedFlask and Handler define it.
    assert py["by_reason"]["dynamic"] == 3 and py["by_reason"]["ambiguous"] == 2
    # Only View.dispatch -> Home.handle has no declared target (abstract): by its override.
    assert py["by_resolution"]["override"] == 1
    assert py["by_resolution"]["exact"] == 1 and py["resolved"] == 2  # App.handle_exception
    assert py == {**doc["calls"], "resolution_rate": py["resolution_rate"]}
    assert doc["edges"]["by_kind"]["calls"]["override"] == 2
    text = runner.invoke(main, ["stats"]).output
    assert "dynamic" in text and "ambiguous" in text and "resolved / (calls - external" in text
    assert "override 2)" in text  # the call edges by resolution

    out = runner.invoke(main, ["callers", "SuppressedFlask.log_exception"])
    assert out.exit_code == 0, out.output
    assert "App.handle_exception" in out.output and "(an override)" in out.output
    out = runner.invoke(main, ["callers", "SuppressedFlask.log_exception", "--json"])
    doc = json.loads(out.output)
    validate(doc, "graph-neighbors.schema.json")
    assert [r["resolution"] for r in doc["results"]] == ["override"]
    # A chain follows an override (a possible runtime target) and says so.
    out = runner.invoke(main, ["chain", "App.handle_exception", "--json"])
    doc = json.loads(out.output)
    validate(doc, "chain.schema.json")
    kids = {c["id"]: c["resolution"] for c in doc["root"]["children"]}
    assert kids == {
        "src.flask.app.App.log_exception": "exact",
        "tests.test_subclassing.SuppressedFlask.log_exception": "override",
    }


def test_stats_of_an_index_built_before_the_reasons(tmp_path, validate):
    """An index whose graph recorded only resolved/external/unresolved call sites: the counts it
    has, every other reason 0, and no per-language outcome."""
    from codebot.index.overlay import open_index
    from codebot.query.graph_output import stats_doc, stats_text

    repo = _repo(tmp_path, PYTHON)
    build_index(repo, Config(embedder="none"))
    index = open_index(repo, Config())
    meta = index.graph.meta
    old = {k: meta["call_sites"][k] for k in ("calls", "resolved", "unique_name", "ignored")}
    meta["call_sites"] = {**old, "external": 0, "unresolved": 0}  # the keys an older build wrote
    del meta["call_sites_by_language"]
    doc = stats_doc(index)
    validate(doc, "stats.schema.json")
    c = doc["calls"]
    assert c["resolved"] == old["resolved"] and c["by_reason"]["dynamic"] == 0
    assert c["external"] == int(index.graph.external.sum())
    assert c["by_reason"]["unknown"] == int(index.graph.unresolved.sum())
    assert "calls" not in doc["languages"]["python"]
    assert any(line.startswith("python") and " - " in line for line in stats_text(doc))
