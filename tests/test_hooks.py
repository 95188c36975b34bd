"""Git hooks: installed beside other hooks in real repositories, and the coalescing update loop."""

from __future__ import annotations

import json
import os
import random
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from codebot.core.errors import GitError, IndexBusy
from codebot.git import hooks
from codebot.git.hooks import (
    GIT_HOOKS,
    HOOK_ID,
    git_dir_at,
    hooks_status,
    install,
    pre_commit_args,
    render_script,
    run_coalesced,
    run_hook,
    uninstall,
    wants_update,
)
from codebot.index.store import lock_for_writing

from .conftest import git, write_files

FAST = {"a.py": "def f():\n    return 1\n", ".codebot.toml": 'embedder = "none"\n'}


def codebot(*args: str, cwd: Path, env: dict | None = None, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "codebot", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        **kw,
    )


def wait_for(predicate, timeout: float = 120.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def log_of(repo: Path) -> str:
    path = repo / ".git" / "codebot" / "update.log"
    return path.read_text() if path.exists() else ""


def recorder(path: Path, out: Path, code: int, shebang: str = "#!/bin/sh") -> bytes:
    """A hook that appends its name, arguments and stdin to ``out`` and exits ``code``."""
    script = (
        f'{shebang}\nprintf "%s|%s|" "$(basename "$0")" "$*" >> {out}\ncat >> {out}\n'
        f"echo >> {out}\nexit {code}\n"
    ).encode()
    path.write_bytes(script)
    path.chmod(0o755)
    return script


# --- install, uninstall, status ------------------------------------------------------------------


def test_install_chains_the_hook_in_place_with_its_arguments_stdin_and_exit_code(
    make_repo, tmp_path
):
    repo = make_repo(FAST)
    hook_dir = repo / ".git" / "hooks"
    out = tmp_path / "ran.txt"
    original = recorder(hook_dir / "post-checkout", out, 5)
    bash_one = recorder(hook_dir / "post-rewrite", out, 7, shebang="#!/usr/bin/env bash")

    report = install(repo)

    assert report.hooks_dir == str(hook_dir)
    actions = {h.name: (h.action, h.chained) for h in report.hooks}
    legacy = str(hook_dir / "post-checkout.codebot-legacy")
    assert actions["post-checkout"] == ("installed", legacy)
    assert actions["post-commit"] == ("installed", None)
    assert HOOK_ID in (hook_dir / "post-checkout").read_text()
    assert (hook_dir / "post-checkout.codebot-legacy").read_bytes() == original

    # checkout fails when its hook fails (git reports 1): the chained hook's code comes through.
    checkout = subprocess.run(["git", "checkout", "-q", "-b", "other"], cwd=repo)
    assert checkout.returncode == 1
    head = git(repo, "rev-parse", "HEAD")
    # The sh hook still sees its own name in $0 (husky's stubs depend on it).
    assert f"post-checkout|{head} {head} 1|" in out.read_text()

    # post-rewrite gets git's old/new pairs on stdin; a bash script is run as itself.
    git(repo, "commit", "-q", "--amend", "-m", "amended")
    new = git(repo, "rev-parse", "HEAD")
    assert f"post-rewrite.codebot-legacy|amend|{head} {new}" in out.read_text()
    direct = subprocess.run(
        [str(hook_dir / "post-rewrite"), "amend"], cwd=repo, input=b"a b\n", capture_output=True
    )
    assert direct.returncode == 7

    report = uninstall(repo)
    assert {h.name: h.action for h in report.hooks} == dict.fromkeys(GIT_HOOKS, "removed")
    assert (hook_dir / "post-checkout").read_bytes() == original
    assert (hook_dir / "post-rewrite").read_bytes() == bash_one
    assert os.access(hook_dir / "post-checkout", os.X_OK)
    assert not list(hook_dir.glob("*.codebot-legacy"))
    assert not (hook_dir / "post-commit").exists()


def test_git_does_not_wait_for_the_update(make_repo, tmp_path):
    repo = make_repo(FAST)
    marker = tmp_path / "started.txt"
    slow = tmp_path / "slow-python"  # stands in for an update that takes a while
    slow.write_text(f'#!/bin/sh\necho "$@" > {marker}\nexec sleep 8\n')
    slow.chmod(0o755)
    install(repo, python=str(slow))

    started = time.monotonic()
    # Output piped, as an editor or a script runs git: an inherited pipe would hold the commit.
    out = subprocess.run(
        ["git", "commit", "-q", "--allow-empty", "-m", "two"], cwd=repo, capture_output=True
    )
    assert out.returncode == 0
    assert time.monotonic() - started < 4
    assert wait_for(lambda: marker.exists() and marker.read_text(), timeout=10)
    assert marker.read_text() == "-m codebot hook post-commit --detached\n"


def test_installing_twice_changes_nothing(make_repo, tmp_path):
    repo = make_repo(FAST)
    hook_dir = repo / ".git" / "hooks"
    original = recorder(hook_dir / "post-merge", tmp_path / "out", 0)
    install(repo)
    before = {p.name: p.read_bytes() for p in hook_dir.iterdir()}

    again = install(repo)

    assert [h.action for h in again.hooks] == ["unchanged"] * 4
    assert {p.name: p.read_bytes() for p in hook_dir.iterdir()} == before
    assert (hook_dir / "post-merge.codebot-legacy").read_bytes() == original


def test_the_cli_says_what_it_did(make_repo, tmp_path):
    repo = make_repo(FAST)
    recorder(repo / ".git" / "hooks" / "post-merge", tmp_path / "out", 0)

    first = codebot("hooks", "install", cwd=repo)
    again = codebot("hooks", "install", cwd=repo)
    removed = codebot("hooks", "uninstall", "--json", cwd=repo)

    assert first.returncode == 0, first.stderr
    assert "post-merge     installed (chains post-merge.codebot-legacy)" in first.stdout
    assert "post-commit    installed\n" in first.stdout
    assert again.stdout.count("unchanged") == 4
    actions = {h["name"]: (h["action"], h["chained"]) for h in json.loads(removed.stdout)["hooks"]}
    assert actions["post-merge"] == ("removed", str(repo / ".git" / "hooks" / "post-merge"))
    assert actions["post-commit"] == ("removed", None)


def test_a_new_interpreter_updates_the_scripts(make_repo):
    repo = make_repo(FAST)
    install(repo, python="/old/venv/bin/python")
    assert [h.state for h in hooks_status(repo).hooks] == ["installed"] * 4

    report = install(repo)

    assert [h.action for h in report.hooks] == ["updated"] * 4
    assert all(h.interpreter == sys.executable for h in hooks_status(repo).hooks)


def test_core_hooks_path_is_where_it_installs(make_repo):
    repo = make_repo(FAST)
    git(repo, "config", "core.hooksPath", ".githooks")
    (repo / "sub").mkdir()

    report = install(repo / "sub")  # relative hooksPath: relative to the work tree root

    assert report.hooks_dir == str(repo / ".githooks")
    assert (repo / ".githooks" / "post-commit").is_file()
    assert not (repo / ".git" / "hooks" / "post-commit").exists()
    assert any("git status" in note for note in report.notes)  # an untracked, unignored folder


def test_a_hook_tracked_by_the_repository_is_not_renamed(make_repo):
    shared = "#!/bin/sh\necho shared\n"
    repo = make_repo({**FAST, ".githooks/post-commit": shared})
    git(repo, "config", "core.hooksPath", ".githooks")

    out = codebot("hooks", "install", "--json", cwd=repo)

    assert out.returncode == 1
    by_name = {h["name"]: h for h in json.loads(out.stdout)["hooks"]}
    assert by_name["post-commit"]["action"] == "refused"
    assert 'codebot hook post-commit "$@"' in by_name["post-commit"]["reason"]
    assert by_name["post-merge"]["action"] == "installed"
    assert (repo / ".githooks" / "post-commit").read_text() == shared


def test_a_global_hooks_path_is_refused_with_the_fix(make_repo, tmp_path):
    repo = make_repo(FAST)
    subprocess.run(["git", "config", "--global", "core.hooksPath", str(tmp_path / "g")], check=True)

    with pytest.raises(GitError, match="global git config.*git config core.hooksPath"):
        install(repo)
    assert not (tmp_path / "g").exists()


def test_outside_git_is_an_error(tmp_path):
    with pytest.raises(GitError, match="not in a git work tree"):
        install(tmp_path)


def test_husky_keeps_running_the_users_hook(make_repo, tmp_path):
    """husky 9: core.hooksPath=.husky/_, whose stubs find the user's script by their own $0."""
    out = tmp_path / "husky.txt"
    repo = make_repo(
        {
            **FAST,
            ".husky/post-commit": f"echo user-hook-ran >> {out}\n",
            ".husky/_/.gitignore": "*",
            # husky's runner (its file `husky`, copied to .husky/_/h), cut to what matters here
            ".husky/_/h": '#!/usr/bin/env sh\nn=$(basename "$0")\n'
            's=$(dirname "$(dirname "$0")")/$n\n[ ! -f "$s" ] && exit 0\nsh -e "$s" "$@"\n',
        }
    )
    git(repo, "config", "core.hooksPath", ".husky/_")
    for name in GIT_HOOKS:
        stub = repo / ".husky" / "_" / name
        stub.write_text('#!/usr/bin/env sh\n. "$(dirname "$0")/h"')
        stub.chmod(0o755)

    report = install(repo)
    assert any("husky" in note for note in report.notes)
    assert not any("git status" in note for note in report.notes)  # .husky/_ ignores itself
    status = {h.name: h for h in hooks_status(repo).hooks}
    assert status["post-commit"].chained_owner == "husky"

    write_files(repo, {"b.py": "x = 2\n"})
    git(repo, "add", "b.py")
    git(repo, "commit", "-q", "-m", "two")
    assert out.read_text() == "user-hook-ran\n"
    assert git(repo, "status", "--porcelain") == ""

    # `npm install` runs husky again, which rewrites its stubs over codebot's scripts.
    stub = repo / ".husky" / "_" / "post-commit"
    stub.write_text('#!/usr/bin/env sh\n. "$(dirname "$0")/h"')
    status = {h.name: h for h in hooks_status(repo).hooks}
    assert (status["post-commit"].state, status["post-commit"].owner) == ("someone else's", "husky")
    assert [h.action for h in install(repo).hooks] == ["installed"] + ["unchanged"] * 3
    uninstall(repo)
    assert stub.read_text() == '#!/usr/bin/env sh\n. "$(dirname "$0")/h"'


def test_uninstall_leaves_someone_elses_hook_alone(make_repo):
    repo = make_repo(FAST)
    install(repo)
    foreign = repo / ".git" / "hooks" / "post-merge"
    foreign.write_text("#!/bin/sh\n# lefthook\n")

    report = uninstall(repo)

    by_name = {h.name: h for h in report.hooks}
    assert (by_name["post-merge"].action, by_name["post-merge"].reason) == (
        "someone else's",
        "lefthook",
    )
    assert foreign.read_text() == "#!/bin/sh\n# lefthook\n"
    assert by_name["post-commit"].action == "removed"
    assert {h.action for h in uninstall(repo).hooks} == {"not installed", "someone else's"}


def test_status_json_names_states_chains_and_a_missing_interpreter(make_repo, tmp_path):
    repo = make_repo(FAST)
    hook_dir = repo / ".git" / "hooks"
    recorder(hook_dir / "post-commit", tmp_path / "out", 0)
    install(repo, python=str(tmp_path / "gone" / "python"))
    (hook_dir / "post-merge").write_text("#!/bin/sh\n# File generated by pre-commit\n")

    out = codebot("hooks", "status", "--json", cwd=repo)

    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["hooks_dir"] == str(hook_dir)
    assert data["log"] == str(repo / ".git" / "codebot" / "update.log")
    by_name = {h["name"]: h for h in data["hooks"]}
    assert by_name["post-commit"]["state"] == "installed"
    assert by_name["post-commit"]["chained"] == str(hook_dir / "post-commit.codebot-legacy")
    assert by_name["post-commit"]["chained_owner"] == "other"
    assert by_name["post-commit"]["interpreter"] == str(tmp_path / "gone" / "python")
    assert by_name["post-commit"]["interpreter_exists"] is False
    assert (by_name["post-merge"]["state"], by_name["post-merge"]["owner"]) == (
        "someone else's",
        "pre-commit",
    )
    # With its Python gone, the script still runs the chained hook and exits with its code.
    git(repo, "commit", "-q", "--allow-empty", "-m", "two")
    assert "post-commit|" in (tmp_path / "out").read_text()
    assert not (repo / ".git" / "codebot").exists()

    (hook_dir / "post-checkout").write_text("#!/bin/sh\n# codebot-hook-id: 3f9d2a7c41e8 old\n")
    assert {h.name: h.state for h in hooks_status(repo).hooks}["post-checkout"] == "outdated"
    text = codebot("hooks", "status", cwd=repo).stdout
    assert "post-merge     someone else's (pre-commit)" in text
    assert "gone/python is gone" in text


def test_the_script_is_posix_sh_and_quotes_the_interpreter(tmp_path):
    script = render_script("post-commit", "/opt/my venv/it's/python", legacy_is_sh=True)
    path = tmp_path / "post-commit"
    path.write_text(script)
    assert subprocess.run(["sh", "-n", str(path)]).returncode == 0
    assert "PY='/opt/my venv/it'\"'\"'s/python'" in script
    assert "HOOK=post-commit" in script and "LEGACY_IS_SH=1" in script
    assert "</dev/null >/dev/null 2>&1 &" in script
    assert "@" not in script.replace('"$@"', "")  # every placeholder filled


def test_pre_commit_hooks_yaml_covers_every_hook():
    yaml = pytest.importorskip("yaml")
    entries = yaml.safe_load((Path(__file__).parent.parent / ".pre-commit-hooks.yaml").read_text())
    assert [e["stages"] for e in entries] == [[name] for name in GIT_HOOKS]
    for entry, name in zip(entries, GIT_HOOKS):
        assert entry["entry"] == f"codebot hook {name}"
        assert entry["language"] == "python"
        assert entry["always_run"] is True and entry["pass_filenames"] is False
        assert entry["minimum_pre_commit_version"] == "3.2.0"


# --- `codebot hook`: what the scripts run --------------------------------------------------------


def test_a_file_checkout_does_nothing():
    assert not wants_update("post-checkout", ("a" * 40, "a" * 40, "0"))
    assert wants_update("post-checkout", ("a" * 40, "b" * 40, "1"))
    assert wants_update("post-commit", ())


def test_no_update_per_commit_while_a_rebase_replays(tmp_path):
    git_dir = tmp_path / ".git"
    (git_dir / "rebase-merge").mkdir(parents=True)
    assert not wants_update("post-commit", (), git_dir)
    assert wants_update("post-rewrite", ("rebase",), git_dir)  # the one at its end
    assert wants_update("post-checkout", ("a", "b", "1"), git_dir)  # a fast-forward has only this
    (git_dir / "rebase-merge").rmdir()
    (git_dir / "rebase-apply").mkdir()  # `git am` uses it too, but only a rebase marks it so
    assert wants_update("post-commit", (), git_dir)
    (git_dir / "rebase-apply" / "rebasing").touch()
    assert not wants_update("post-commit", (), git_dir)


def test_a_linked_worktree_runs_the_shared_hooks(make_repo, tmp_path):
    repo = make_repo(FAST)
    install(repo)
    worktree = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", str(worktree), "-b", "side")
    assert git_dir_at(worktree) == repo / ".git" / "worktrees" / "wt"
    assert git_dir_at(repo) == repo / ".git"

    git(worktree, "commit", "-q", "--allow-empty", "-m", "on the side")

    # The index, shared by the worktrees, follows the last one that moved its HEAD.
    assert wait_for(lambda: indexed_commit(repo) == git(worktree, "rev-parse", "HEAD"))
    assert wait_for(lambda: "post-commit: " in log_of(repo))  # logged once the update is done


def test_pre_commit_variables_become_the_hook_arguments():
    env = {"PRE_COMMIT": "1", "PRE_COMMIT_FROM_REF": "a", "PRE_COMMIT_TO_REF": "b"}
    assert pre_commit_args("post-checkout", {**env, "PRE_COMMIT_CHECKOUT_TYPE": "0"}) == (
        "a",
        "b",
        "0",
    )
    assert pre_commit_args("post-checkout", env) == ()  # incomplete: treat as a branch checkout
    assert pre_commit_args("post-rewrite", {"PRE_COMMIT_REWRITE_COMMAND": "rebase"}) == ("rebase",)
    assert pre_commit_args("post-commit", env) == ()


def test_cli_reads_pre_commit_variables(make_repo):
    repo = make_repo(FAST)
    env = {"PRE_COMMIT": "1", "PRE_COMMIT_FROM_REF": "x", "PRE_COMMIT_TO_REF": "y"}

    def checkout(checkout_type: str):
        env_now = {**env, "PRE_COMMIT_CHECKOUT_TYPE": checkout_type}
        return codebot("hook", "post-checkout", "--detached", cwd=repo, env=env_now)

    assert checkout("0").returncode == 0  # a file checkout
    assert not (repo / ".git" / "codebot").exists()  # it ran nothing, synchronously

    assert checkout("1").returncode == 0  # a branch checkout
    assert "post-checkout: " in log_of(repo)


def test_a_failing_update_exits_0_and_logs(make_repo):
    repo = make_repo({**FAST, ".codebot.toml": "no_such_setting = 1\n"})

    out = codebot("hook", "post-commit", "--detached", cwd=repo)

    assert (out.returncode, out.stdout, out.stderr) == (0, "", "")
    log = log_of(repo)
    assert "post-commit: update failed" in log
    assert "no_such_setting" in log


def test_codebot_hook_detaches_and_returns_at_once(make_repo):
    repo = make_repo(FAST)
    started = time.monotonic()
    # Piped output, as git and pre-commit run hooks: a child holding the pipes would keep
    # communicate() waiting until the update ended.
    proc = subprocess.Popen(
        [sys.executable, "-m", "codebot", "hook", "post-commit"],
        cwd=repo,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    out, err = proc.communicate(timeout=30)
    assert (proc.returncode, out, err) == (0, b"", b"")
    assert time.monotonic() - started < 5
    assert wait_for(lambda: "post-commit: " in log_of(repo))  # the update ran in the background


def test_spawn_detached_holds_none_of_our_streams():
    sleeper = [sys.executable, "-c", "import time; time.sleep(30)"]
    code = f"from codebot.git.hooks import spawn_detached; spawn_detached({sleeper!r}); print('ok')"
    started = time.monotonic()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=20)
    assert out.stdout == "ok\n"
    assert time.monotonic() - started < 10


def test_codebot_hook_imports_nothing_heavy_before_it_detaches(make_repo):
    repo = make_repo(FAST)
    code = (
        "import subprocess, sys\n"
        "subprocess.Popen = lambda *a, **k: None\n"  # stop at the point of detaching
        "from codebot.serve.cli import main\n"
        "main(['hook', 'post-commit'], standalone_mode=False)\n"
        "heavy = {'numpy', 'networkx', 'httpx', 'tantivy', 'usearch', 'pygit2', 'tree_sitter',"
        " 'onnxruntime', 'codebot.index.store', 'codebot.index.update'}\n"
        "print(sorted(heavy & set(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=repo, capture_output=True, text=True)
    assert out.stdout == "[]\n", out.stderr


def test_python_dash_m_codebot_runs_the_cli():
    out = subprocess.run(
        [sys.executable, "-m", "codebot", "--help"], capture_output=True, text=True
    )
    assert out.returncode == 0
    assert "hooks" in out.stdout and "hook " in out.stdout


# --- the coalescing loop -------------------------------------------------------------------------


def test_hooks_during_an_update_make_one_more_update(tmp_path):
    index_dir = tmp_path / "idx"
    started, release, calls = threading.Event(), threading.Event(), []

    def job():
        with lock_for_writing(index_dir):
            calls.append(time.monotonic())
            started.set()
            release.wait(10)

    first = []
    runner = threading.Thread(target=lambda: first.append(run_coalesced(index_dir, job)))
    runner.start()
    assert started.wait(10)
    others = [run_coalesced(index_dir, job) for _ in range(30)]  # a rebase's worth of commits
    assert others == [0] * 30  # each returned at once: the running update will cover them
    release.set()
    runner.join(10)

    assert first == [2] and len(calls) == 2
    assert not (index_dir / "update.pending").exists()


def test_no_commit_is_left_out_under_concurrent_hooks(tmp_path):
    """Whatever the interleaving, an update starts after the last commit's hook."""
    index_dir = tmp_path / "idx"
    head, seen, lock = [0], [], threading.Lock()
    rng = random.Random(6)

    def job():
        with lock_for_writing(index_dir):  # as update_index does: lock, then read HEAD
            with lock:
                seen.append(head[0])
            time.sleep(rng.random() * 0.003)

    def commit_and_hook():
        with lock:
            head[0] += 1
        time.sleep(rng.random() * 0.002)
        run_coalesced(index_dir, job)

    for _ in range(400):
        threads = [threading.Thread(target=commit_and_hook) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert seen[-1] == head[0]
    assert len(seen) < head[0]  # and they coalesced


def test_another_writer_is_waited_for(tmp_path):
    index_dir = tmp_path / "idx"
    attempts = []

    def job():
        attempts.append(1)
        if len(attempts) < 3:
            raise IndexBusy("a build is writing")

    assert run_coalesced(index_dir, job, poll=0.01) == 1
    assert len(attempts) == 3
    assert not (index_dir / "update.pending").exists()

    def always_busy():
        raise IndexBusy("a build is writing")

    with pytest.raises(IndexBusy):
        run_coalesced(index_dir, always_busy, busy_wait=0.05, poll=0.01)
    assert (index_dir / "update.pending").exists()  # the next hook will take it


def test_run_hook_logs_every_outcome_and_never_raises(tmp_path):
    index_dir = tmp_path / "idx"
    run_hook("post-commit", index_dir, lambda: "updated abc -> def")

    def broken():
        raise ValueError("the disk is on fire")

    run_hook("post-merge", index_dir, broken)
    log = (index_dir / "update.log").read_text()
    assert "post-commit: updated in" in log and "updated abc -> def" in log
    assert "post-merge: update failed" in log and "ValueError: the disk is on fire" in log


def test_the_log_stays_small(tmp_path, monkeypatch):
    index_dir = tmp_path / "idx"
    monkeypatch.setattr(hooks, "LOG_MAX_BYTES", 1000)
    for i in range(200):
        hooks.append_log(index_dir, f"line {i} " + "x" * 50)
    assert (index_dir / "update.log").stat().st_size <= 1000 + 100
    assert (index_dir / "update.log.1").exists()
    assert "line 199" in (index_dir / "update.log").read_text()


def test_an_installed_script_is_executable(make_repo):
    repo = make_repo(FAST)
    install(repo)
    for name in GIT_HOOKS:
        mode = (repo / ".git" / "hooks" / name).stat().st_mode
        assert mode & stat.S_IXUSR


# --- end to end: real commits, real updates ------------------------------------------------------


def settled(repo: Path, hooks_run: int):
    """True once ``hooks_run`` hooks have logged, nothing is pending and the index is at HEAD."""

    def check() -> bool:
        lines = log_of(repo).splitlines()
        pids = {line.split("[", 1)[1].split("]")[0] for line in lines if "] " in line}
        if len(pids) < hooks_run or (repo / ".git" / "codebot" / "update.pending").exists():
            return False
        return indexed_commit(repo) == git(repo, "rev-parse", "HEAD")

    return check


def count_hooks(repo: Path, fired: Path) -> None:
    """Chain a hook before each of codebot's that counts how often git fires it."""
    for name in GIT_HOOKS:
        path = repo / ".git" / "hooks" / f"{name}.codebot-legacy"
        path.write_text(f"#!/bin/sh\necho {name} >> {fired}\n")
        path.chmod(0o755)
    install(repo)


def indexed_commit(repo: Path) -> str | None:
    from codebot.index.store import read_manifest

    try:
        return read_manifest(repo / ".git" / "codebot").commit
    except Exception:  # not built yet, or being replaced
        return None


def fired_hooks(fired: Path) -> list[str]:
    return fired.read_text().splitlines() if fired.exists() else []


def topic_branch(repo: Path, commits: int) -> None:
    """A branch ``topic`` of ``commits`` commits, and ``main`` one commit further."""
    git(repo, "checkout", "-q", "-b", "topic")
    for i in range(commits):
        write_files(repo, {f"m{i}.py": f"def g{i}():\n    return {i}\n"})
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"c{i}")
    git(repo, "checkout", "-q", "main")
    write_files(repo, {"b.py": "x = 1\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "b")


def test_a_commit_brings_the_index_to_head(make_repo, tmp_path):
    repo = make_repo(FAST)
    count_hooks(repo, tmp_path / "fired")

    write_files(repo, {"b.py": "def g():\n    return f()\n"})
    git(repo, "add", "b.py")
    git(repo, "commit", "-q", "-m", "two")

    assert wait_for(settled(repo, 1)), log_of(repo)
    assert "post-commit: updated in" in log_of(repo)
    assert "update failed" not in log_of(repo)


def test_a_rebase_updates_once_at_its_end(make_repo, tmp_path):
    repo = make_repo(FAST)
    topic_branch(repo, 12)
    git(repo, "checkout", "-q", "topic")
    fired = tmp_path / "fired"
    count_hooks(repo, fired)

    git(repo, "rebase", "-q", "main")

    assert fired_hooks(fired).count("post-commit") == 12  # every chained hook still ran
    assert wait_for(settled(repo, 2)), log_of(repo)  # post-checkout (its start), post-rewrite
    log = log_of(repo)
    assert "post-rewrite: " in log and "post-commit: " not in log
    assert 1 <= log.count(": updated in") <= 2
    assert "update failed" not in log


def test_commits_in_a_burst_coalesce(make_repo, tmp_path):
    repo = make_repo(FAST)
    topic_branch(repo, 12)
    fired = tmp_path / "fired"
    count_hooks(repo, fired)

    git(repo, "cherry-pick", "main..topic")  # no post-rewrite at the end: every hook counts

    assert fired_hooks(fired).count("post-commit") == 12
    assert wait_for(settled(repo, 12)), log_of(repo)
    log = log_of(repo)
    # A hook that starts after the others' update let its lock go finds the index at HEAD and
    # logs "up-to-date": a check, not an update (on a loaded machine every hook may be one).
    worked = [
        line for line in log.splitlines() if ": updated in" in line and "up-to-date" not in line
    ]
    assert 1 <= len(worked) < 12, log
    assert "update failed" not in log


@pytest.mark.skipif(sys.version_info < (3, 11), reason="-P / PYTHONSAFEPATH arrived in 3.11")
def test_a_codebot_package_in_the_work_tree_is_not_what_runs(make_repo, tmp_path):
    planted = tmp_path / "planted.txt"
    repo = make_repo({**FAST, "codebot/__init__.py": f"open({str(planted)!r}, 'w').close()\n"})
    count_hooks(repo, tmp_path / "fired")
    git(repo, "commit", "-q", "--allow-empty", "-m", "two")
    assert wait_for(settled(repo, 1)), log_of(repo)
    # The self-detaching path (as under pre-commit), started safely itself: its child must be too.
    out = subprocess.run([sys.executable, "-P", "-m", "codebot", "hook", "post-commit"], cwd=repo)
    assert out.returncode == 0
    assert wait_for(lambda: log_of(repo).count("post-commit: ") >= 2)
    assert not planted.exists()
