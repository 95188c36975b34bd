"""``python -m codebot`` and the ``codebot`` command: the command line, run by the interpreter
named (what the git hooks use).

A no-op ``codebot update`` (the index already at HEAD) is answered here, before the command line
and its imports load: ``index.fresh`` reads HEAD, the manifest and the last full update's stamp
with the standard library alone. Anything it cannot vouch for takes the full command."""

from __future__ import annotations

import sys

_QUIET = ("-q", "--quiet")


def _quick(args: list[str]) -> bool:
    """Answer ``codebot [-q] update [PATH]`` when nothing changed; False to take the full path."""
    while args and args[0] in _QUIET:
        args = args[1:]
    if not args or args[0] != "update" or len(args) > 2:
        return False
    path = args[1] if len(args) == 2 else "."
    if path.startswith("-"):
        return False
    from codebot.index.fresh import quick_noop

    commit = quick_noop(path)
    if commit is None:
        return False
    sys.stdout.write(f"up to date at {commit[:10]}\n")
    return True


def run() -> None:
    """The ``codebot`` command."""
    if _quick(sys.argv[1:]):
        return
    from codebot.serve.cli import main

    main(prog_name="codebot")


if __name__ == "__main__":
    run()
