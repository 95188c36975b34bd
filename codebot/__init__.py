"""codebot: a context engine for coding agents.

The functions a question about a codebase needs, ranked and as call chains. The command line is
``codebot``; the library entry points are re-exported here and imported on first use, so
``import codebot`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

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
    "CodebotError": "codebot.errors",
    "Config": "codebot.config",
    "load_config": "codebot.config",
    "Symbol": "codebot.model",
    "parse_path": "codebot.parse",
    "build_index": "codebot.indexer",
    "open_index": "codebot.store",
    "Searcher": "codebot.search",
    "Hit": "codebot.search",
}

if TYPE_CHECKING:  # pragma: no cover
    from .config import Config, load_config
    from .errors import CodebotError
    from .indexer import build_index
    from .model import Symbol
    from .parse import parse_path
    from .search import Hit, Searcher
    from .store import open_index


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'codebot' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
