#!/bin/sh
# codebot-hook-id: 3f9d2a7c41e8 (installed by `codebot hooks install`; `codebot hooks uninstall` removes it)
# Keeps codebot's index at HEAD: runs the hook this one replaced, then starts
# `codebot hook @HOOK@` in the background so git never waits for the update.
# See hooks/README.md in the codebot repository.
PY=@PYTHON@
HOOK=@HOOK@
LEGACY_IS_SH=@LEGACY_IS_SH@

case $0 in */*) dir=${0%/*} ;; *) dir=. ;; esac
legacy="$dir/$HOOK.codebot-legacy"
status=0
if [ -x "$legacy" ]; then
    if [ "$LEGACY_IS_SH" = 1 ]; then
        # An sh script may find its own name in $0 (husky's stubs do): give it the name git gave us.
        CODEBOT_LEGACY_HOOK=$legacy sh -c '. "$CODEBOT_LEGACY_HOOK"' "$dir/$HOOK" "$@"
    else
        "$legacy" "$@"
    fi
    status=$?
fi
# A rebase fires post-commit for each commit it replays, then post-rewrite once at its end: leave
# the update to that one, rather than start one per commit beside the rebase.
if [ "$HOOK" = post-commit ]; then
    gitdir=${GIT_DIR:-.git}
    if [ -f "$gitdir" ]; then  # a linked worktree: .git names its git directory
        read -r gitdir <"$gitdir"
        gitdir=${gitdir#gitdir: }
    fi
    if [ -d "$gitdir/rebase-merge" ] || [ -f "$gitdir/rebase-apply/rebasing" ]; then
        exit $status
    fi
fi
# Never block: with all three streams redirected, git does not wait for the update.
# PYTHONSAFEPATH (3.11+): import the installed codebot, never a codebot/ in this work tree.
if [ -x "$PY" ]; then
    PYTHONSAFEPATH=1 "$PY" -m codebot hook "$HOOK" --detached "$@" </dev/null >/dev/null 2>&1 &
fi
exit $status
