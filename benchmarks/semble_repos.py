"""Check out the semble benchmark's repositories at their pinned revisions; write the manifest.

    python benchmarks/semble_repos.py [--repos-dir /work/bench-repos] [--mirror-dir DIR]
        [--semble-dir /work/shared/bench/semble] [--repo NAME ...]

For every repository of ``<semble-dir>/repos.json`` (or only those named) a checkout is made in
``<repos-dir>/NAME`` at the pinned revision: cloned from ``<mirror-dir>/<owner>+<name>/repo`` when
such a bare copy exists there (how the ``fetch`` tool leaves snapshots), else with a plain
``git clone`` of the repository's URL. A checkout that is already at the pinned revision is left
as it is. When the pinned revision is not in the clone (a snapshot that lacks it) the newest commit
of the default branch is used and the manifest says so; a repository that cannot be cloned at all
is listed with ``ok: false`` and the reason, and ``benchmarks/semble.py`` skips it.

``<repos-dir>/manifest.json`` is what ``benchmarks/semble.py`` reads: entries already there for
other repositories are kept; those named here are replaced. Entries follow repos.json's order.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

DEFAULT_SEMBLE = Path("/work/shared/bench/semble")


def git(*args: str, cwd: Path | None = None, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=cwd, check=check, capture_output=True, text=True)


def owner_name(url: str) -> str:
    """``https://github.com/owner/name.git`` -> ``owner/name``."""
    tail = url.rstrip("/").removesuffix(".git")
    return "/".join(tail.split("/")[-2:])


def mirror_of(url: str, rev: str, mirror_dir: Path | None) -> Path | None:
    """The bare copy of ``url`` under ``mirror_dir`` (``owner+name/repo``), if there is one.

    The owner is matched case-insensitively and a repository that moved keeps its name
    (encode/starlette lives on as Kludex/starlette), so copies under another owner with the same
    name count too: the first that holds the pinned revision ``rev`` wins, else the named
    owner's (neuecc/MessagePack-CSharp's snapshot stops in 2021; its pinned revision is in
    MessagePack-CSharp/MessagePack-CSharp's)."""
    if mirror_dir is None or not mirror_dir.is_dir():
        return None
    owner, name = owner_name(url).split("/")
    candidates = sorted(mirror_dir.glob("*+*"))
    exact = [c for c in candidates if c.name.lower() == f"{owner}+{name}".lower()]
    moved = [c for c in candidates if c.name.split("+", 1)[1].lower() == name.lower()]
    dirs = [
        git_dir
        for c in exact + [m for m in moved if m not in exact]
        for git_dir in (c / "repo" / ".git", c / "repo")
        if (git_dir / "HEAD").is_file()
    ]
    for git_dir in dirs:
        has = git(f"--git-dir={git_dir}", "cat-file", "-e", rev + "^{commit}", check=False)
        if has.returncode == 0:
            return git_dir
    return dirs[0] if dirs else None


def fallback(path: Path, root: str) -> tuple[str, str]:
    """(commit, branch) to use when the pinned revision is absent: the default branch's newest
    commit when its tree has the benchmark root, else the most recently committed branch whose
    tree has it (jackson-databind's default branch is 2.x; its benchmark root is on 3.x)."""
    refs = git(
        "for-each-ref", "--sort=-committerdate", "--format=%(refname:short)", "refs/remotes",
        cwd=path, check=False,
    ).stdout.split()  # fmt: skip
    for ref in ["origin/HEAD", *(r for r in refs if not r.endswith("/HEAD"))]:
        commit = git("rev-parse", "-q", "--verify", ref + "^{commit}", cwd=path, check=False)
        if commit.returncode != 0:
            continue
        if (
            not root
            or git("cat-file", "-e", f"{ref}:{root}", cwd=path, check=False).returncode == 0
        ):
            name = "the default branch" if ref == "origin/HEAD" else ref.removeprefix("origin/")
            return commit.stdout.strip(), name
    return "", ""


def checkout(entry: dict[str, Any], repos_dir: Path, mirror_dir: Path | None) -> dict[str, Any]:
    """Make ``repos_dir/NAME`` a checkout of ``entry``'s pinned revision; its manifest entry."""
    name, rev = entry["name"], entry["revision"]
    path = repos_dir / name
    out = {
        "name": name,
        "language": entry["language"],
        "url": entry["url"],
        "revision": rev,
        "revision_used": None,
        "benchmark_root": entry.get("benchmark_root") or "",
        "path": str(path),
        "ok": False,
        "note": "",
    }
    notes: list[str] = []
    source = mirror_of(entry["url"], rev, mirror_dir)
    if path.exists():
        head = git("rev-parse", "HEAD", cwd=path, check=False).stdout.strip()
        if head == rev:
            return {**out, "revision_used": rev, "ok": True}
        # Someone else's checkout at another revision: never moved, ours goes beside it.
        path = repos_dir / f"{name}@{rev[:12]}"
        out["path"] = str(path)
        notes.append(f"{repos_dir / name} is at another revision; checked out beside it")
    if (path / ".git").exists():
        head = git("rev-parse", "HEAD", cwd=path, check=False).stdout.strip()
        if head == rev:
            return {**out, "revision_used": rev, "ok": True, "note": "; ".join(notes)}
    else:
        origin = str(source) if source else entry["url"]
        cloned = git("clone", "-q", "--no-checkout", origin, str(path), check=False)
        if cloned.returncode != 0:
            why = cloned.stderr.strip().splitlines()[-1:] or ["git clone failed"]
            return {**out, "note": f"not cloned from {origin}: {why[0]}"}
        if source and owner_name(entry["url"]).lower() not in str(source).replace("+", "/").lower():
            notes.append(f"cloned from {source.parent.name.replace('+', '/')}")
    if git("cat-file", "-e", rev + "^{commit}", cwd=path, check=False).returncode == 0:
        used = rev
    else:
        git("fetch", "-q", "origin", rev, cwd=path, check=False)  # a server may serve it by sha
        if git("cat-file", "-e", rev + "^{commit}", cwd=path, check=False).returncode == 0:
            used = rev
        else:
            used, branch = fallback(path, out["benchmark_root"])
            if not used:
                return {
                    **out,
                    "note": f"pinned revision {rev[:12]} absent and no branch has "
                    f"{out['benchmark_root'] or 'files'}",
                }
            notes.append(
                f"pinned revision {rev[:12]} missing from the clone; newest commit of {branch} used"
            )
    # A snapshot may lack its largest blobs (binaries): checkout then reports errors; check HEAD
    # and list what is missing instead of failing.
    git("checkout", "-q", "-f", "--detach", used, cwd=path, check=False)
    head = git("rev-parse", "HEAD", cwd=path, check=False).stdout.strip()
    if head != used:
        return {**out, "note": f"checkout of {used[:12]} failed"}
    status = git("status", "--short", cwd=path).stdout.splitlines()
    missing = [line[3:] for line in status if line.startswith(" D")]
    if missing:
        root = out["benchmark_root"]
        inside = [m for m in missing if m.startswith(root)]
        notes.append(
            f"{len(missing)} blob(s) absent from the snapshot ({len(inside)} under "
            f"benchmark_root): " + ", ".join(missing[:4])
        )
    return {**out, "revision_used": used, "ok": True, "note": "; ".join(notes)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repos-dir", type=Path, default=Path("/work/bench-repos"))
    ap.add_argument("--semble-dir", type=Path, default=DEFAULT_SEMBLE, help="holds repos.json")
    ap.add_argument(
        "--mirror-dir", type=Path, help="bare copies as owner+name/repo (else git clone URL)"
    )
    ap.add_argument("--repo", action="append", default=[], help="only this repository")
    args = ap.parse_args(argv)

    repos = json.loads((args.semble_dir / "repos.json").read_text())
    if unknown := set(args.repo) - {e["name"] for e in repos}:
        ap.error(f"not in repos.json: {', '.join(sorted(unknown))}")
    args.repos_dir.mkdir(parents=True, exist_ok=True)
    manifest_path = args.repos_dir / "manifest.json"
    kept: dict[str, dict[str, Any]] = {}
    if manifest_path.exists():
        kept = {e["name"]: e for e in json.loads(manifest_path.read_text())}
    for entry in repos:
        if args.repo and entry["name"] not in args.repo:
            continue
        old = kept.get(entry["name"])
        path = args.repos_dir / entry["name"]
        if (
            old
            and old.get("ok")
            and (path / ".git").exists()
            and old.get("revision_used")
            == (git("rev-parse", "HEAD", cwd=path, check=False).stdout.strip())
        ):
            row = old  # checked out before (perhaps at a fallback revision): left as it is
        else:
            row = checkout(entry, args.repos_dir, args.mirror_dir)
        kept[entry["name"]] = row
        state = (row["revision_used"] or "")[:12] if row["ok"] else "NOT AVAILABLE"
        print(f"{row['name']:<20} {state:<14} {row['note']}", file=sys.stderr, flush=True)
    order = {e["name"]: i for i, e in enumerate(repos)}
    rows = sorted(kept.values(), key=lambda e: order.get(e["name"], len(order)))
    manifest_path.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
