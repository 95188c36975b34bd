"""``python -m codebot``: the command line, run by the interpreter named (what the git hooks use)."""

from codebot.serve.cli import main

if __name__ == "__main__":
    main(prog_name="codebot")
