from codebot.core.model import Import
from codebot.languages import language_for_path

SOURCE = """
#!/usr/bin/env bash
source "$(dirname "$0")/helpers.sh"
. ./colors.bash

# Prints how to call the tool.
# Exits with 2.
usage() {
  echo "usage: tool CMD" >&2
  tool_log "usage"
  exit 2
}

function tool_list {
  local dir
  usage
  tool_fetch "$1" | grep -v '^#'
}

function tool_fetch() { curl -s "$1"; }

MAX_RETRIES=3
export TOOL_HOME="$HOME/.tool"
tool_cache=""
"""


def test_language_of_shell_files():
    assert language_for_path("lib/tool.sh") == "shell"
    assert language_for_path("bin/tool", b"#!/bin/bash\necho\n") == "shell"


def test_definitions_docstrings_signatures(parse):
    p = parse("shell", "lib/tool.sh", SOURCE)
    assert p.ids == [
        "lib.tool.usage",
        "lib.tool.tool_list",
        "lib.tool.tool_fetch",
        "lib.tool.MAX_RETRIES",
        "lib.tool.TOOL_HOME",
        "lib.tool.tool_cache",
    ]
    assert p["lib.tool.usage"].kind == "function"
    assert (p["lib.tool.usage"].start_line, p["lib.tool.usage"].end_line) == (7, 11)
    assert p["lib.tool.usage"].signature == "usage()"
    assert p["lib.tool.tool_list"].signature == "function tool_list"
    assert p["lib.tool.usage"].docstring == "Prints how to call the tool.\nExits with 2."
    assert p["lib.tool.tool_list"].docstring is None
    assert p["lib.tool.MAX_RETRIES"].kind == "constant"
    assert p["lib.tool.TOOL_HOME"].kind == "constant"
    assert p["lib.tool.tool_cache"].kind == "variable"


def test_calls_and_imports(parse):
    p = parse("shell", "lib/tool.sh", SOURCE)
    assert p.calls("lib.tool.usage") == ["echo", "tool_log", "exit"]
    assert p.calls("lib.tool.tool_list") == ["usage", "tool_fetch", "grep"]
    assert p.imports == [
        Import('$(dirname "$0")/helpers.sh', line=2),
        Import("./colors.bash", line=3),
    ]


def test_calls_resolve_by_name_across_sourced_files(resolved):
    edges = resolved(
        "shell",
        {
            "lib/log.sh": 'tool_log() { echo "$@"; }\n',
            "lib/a.sh": "tool_fmt() { :; }\n",
            "lib/b.sh": "tool_fmt() { :; }\n",
            "lib/tool.sh": """
            source ./b.sh
            usage() { tool_log "usage"; }
            main() {
              usage
              tool_fmt x
              git status
            }
            """,
        },
    )
    assert edges == {
        ("lib.tool.usage", "lib.log.tool_log"): "unique_name",
        ("lib.tool.main", "lib.tool.usage"): "exact",
        ("lib.tool.main", "lib.b.tool_fmt"): "exact",  # of the two, the sourced file's
    }
