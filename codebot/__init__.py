"""codebot: a context engine for coding agents.

The functions a question about a codebase needs, ranked and as call chains. The command line is
``codebot``; the library entry points are re-exported here and imported on first use, so
``import codebot`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from codebot.core import __version__

__all__ = [
    "__version__",
    "CodebotError",
    "Config",
    "load_config",
    "Symbol",
    "parse_path",
    "build_index",
    "open_index",
    "Searcher",
    "Hit",
]

_EXPORTS = {
    "CodebotError": "codebot.core.errors",
    "Config": "codebot.core.config",
    "load_config": "codebot.core.config",
    "Symbol": "codebot.core.model",
    "parse_path": "codebot.parse.extract",
    "build_index": "codebot.index.build",
    "open_index": "codebot.index.overlay",
    "Searcher": "codebot.query.search",
    "Hit": "codebot.query.search",
}

if TYPE_CHECKING:  # pragma: no cover
    from codebot.core.config import Config, load_config
    from codebot.core.errors import CodebotError
    from codebot.core.model import Symbol
    from codebot.index.build import build_index
    from codebot.index.overlay import open_index
    from codebot.parse.extract import parse_path
    from codebot.query.search import Hit, Searcher


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'codebot' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
