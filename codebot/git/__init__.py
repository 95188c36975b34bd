"""The git layer: everything pygit2 and the git command line do for codebot.

``repo`` opens a repository and reads commits, trees, blobs, diffs and the work tree's status;
``refs`` reads HEAD without pygit2; ``cleanstamp`` records a clean work tree's stat, so that a
query on it unchanged needs no pygit2;
``workspace`` turns a path into the :class:`~codebot.git.workspace.Workspace` every command
passes down; ``hooks`` installs the git hooks and runs their coalesced background job.
Imports: ``core``.
"""
