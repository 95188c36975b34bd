"""Per-language call resolution rules; :mod:`codebot.graph.resolve` is the entry point.

One module per language family, each a :class:`~codebot.graph.resolvers.base.Resolver` subclass:
``python``; ``ecmascript`` (JavaScript, TypeScript, TSX); ``golang``; ``jvm`` (Java, Kotlin,
Scala); ``namespaced`` (C#, PHP, C, C++, Ruby, Swift: names looked up in nested namespaces that
span files); ``rust``; ``lua`` (module tables and ``require``); ``elixir`` (namespaced, with
``alias``); ``plain`` (Bash, Haskell: functions called by their plain name); ``zig`` (files as structs,
aliases, typed receivers).
"""

from __future__ import annotations

import importlib

from codebot.graph.resolvers.base import Resolver
from codebot.graph.resolvers.names import FAMILY, NameTable

__all__ = ["FAMILY", "NameTable", "Resolver", "resolver_class"]

# family -> "module:Class", imported on first use.
_RESOLVERS: dict[str, str] = {
    "python": "python:PythonResolver",
    "js": "ecmascript:EcmaResolver",
    "go": "golang:GoResolver",
    "jvm": "jvm:JvmResolver",
    "csharp": "namespaced:CSharpResolver",
    "php": "namespaced:PhpResolver",
    "c": "namespaced:CResolver",
    "ruby": "namespaced:RubyResolver",
    "swift": "namespaced:SwiftResolver",
    "rust": "rust:RustResolver",
    "lua": "lua:LuaResolver",
    "elixir": "elixir:ElixirResolver",
    "shell": "plain:ShellResolver",
    "haskell": "plain:HaskellResolver",
    "zig": "zig:ZigResolver",
}


def resolver_class(family: str) -> type[Resolver]:
    module, cls = _RESOLVERS[family].split(":")
    return getattr(importlib.import_module(f"{__name__}.{module}"), cls)
