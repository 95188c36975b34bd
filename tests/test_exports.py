"""The public API: what `import codebot` offers, and that importing it stays cheap."""

from __future__ import annotations

import subprocess
import sys

import codebot


def test_exported_names_resolve():
    assert sorted(codebot.__all__) == sorted(
        [
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
    )
    for name in codebot.__all__:
        assert getattr(codebot, name) is not None


def test_import_codebot_loads_nothing_heavy():
    code = (
        "import sys, codebot; print(sorted(m for m in ('tree_sitter', 'numpy', 'tantivy', "
        "'usearch', 'onnxruntime', 'pygit2', 'networkx', 'httpx') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
