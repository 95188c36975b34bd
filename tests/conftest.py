"""Shared fixtures: a sandboxed HOME, real git repositories in tmp_path, schema validation."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

SCHEMAS = Path(__file__).resolve().parent.parent / "schemas"


def sandbox(mp: pytest.MonkeyPatch, home: Path) -> None:
    """Point home, git's configuration and codebot's settings at ``home``, with a fixed git
    identity and date, and drop every CODEBOT_ variable and CI (the tests describe a
    developer's machine; the few about CI's foreground default set it themselves)."""
    import os

    mp.setenv("HOME", str(home))
    mp.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    mp.setenv("XDG_CONFIG_HOME", str(home / ".config"))  # codebot's user settings file
    mp.setenv("GIT_CONFIG_NOSYSTEM", "1")
    mp.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    for var in ("AUTHOR", "COMMITTER"):
        mp.setenv(f"GIT_{var}_NAME", "Codebot Test")
        mp.setenv(f"GIT_{var}_EMAIL", "test@codebot.invalid")
        mp.setenv(f"GIT_{var}_DATE", "2026-01-01T00:00:00Z")
    mp.delenv("CI", raising=False)
    for key in list(os.environ):
        if key.startswith("CODEBOT_"):
            mp.delenv(key)


@pytest.fixture(autouse=True)
def _sandbox(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads or writes the user's home, git config or codebot settings."""
    sandbox(monkeypatch, tmp_path_factory.mktemp("home"))


def git(repo: Path, *args: str) -> str:
    out = subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True)
    return out.stdout.strip()


@pytest.fixture
def make_repo(tmp_path: Path):
    """Make a git repository from {path: text or bytes}, committed; returns its path."""

    def _make(files: dict[str, str | bytes], name: str = "repo", commit: bool = True) -> Path:
        repo = tmp_path / name
        repo.mkdir()
        git(repo, "init", "-q", "-b", "main")
        write_files(repo, files)
        if commit:
            git(repo, "add", "-A")
            git(repo, "commit", "-q", "-m", "initial")
        return repo

    return _make


def indexed_snippets(root: Path, files: dict[str, str]):
    """A git repository of these snippets (leading newlines dropped) committed in ``root`` and
    indexed with the hashing embedder: (root, embedder), for ranking tests to query."""
    from codebot.core.config import Config
    from codebot.index.build import build_index

    from .fakes import HashingEmbedder

    git(root, "init", "-q", "-b", "main")
    write_files(root, {k: v.lstrip("\n") for k, v in files.items()})
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "snippets")
    embedder = HashingEmbedder()
    build_index(root, Config(), embedder=embedder)
    return root, embedder


def write_files(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)


@pytest.fixture(scope="session")
def validate():
    """Validate data against one of the schemas in schemas/, with $refs between them resolved."""
    import jsonschema
    from referencing import Registry, Resource

    resources = []
    for path in SCHEMAS.glob("*.schema.json"):
        schema = json.loads(path.read_text())
        resource = Resource.from_contents(schema)
        resources += [(schema["$id"], resource), (path.name, resource)]
    registry = Registry().with_resources(resources)

    def _validate(data: object, name: str) -> None:
        schema = json.loads((SCHEMAS / name).read_text())
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        cls(schema, registry=registry).validate(data)

    return _validate
