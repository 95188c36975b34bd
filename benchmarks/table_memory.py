"""Peak memory of writing the symbol table of a large index: packed in one go or streamed.

    python benchmarks/table_memory.py INDEX_DIR stream|packed

Loads the symbols of INDEX_DIR's newest generation, resets the process's high-water mark
(Linux: /proc/self/clear_refs), writes them once (``tables.write_symbols`` or
``tables.pack_symbols``) and prints how far the peak went above the loaded symbols. Run once
per mode, each in its own process.
"""

from __future__ import annotations

import gc
import sys
import tempfile
import time
from pathlib import Path

from codebot.index.tables import load_symbols, pack_symbols, write_symbols


def status_mb(key: str) -> int:
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) // 1024
    raise KeyError(key)


def main() -> None:
    index_dir, mode = Path(sys.argv[1]), sys.argv[2]
    gc.disable()
    gen = max(index_dir.glob("gen-*[0-9]"), key=lambda p: int(p.name[4:]))
    table = load_symbols(gen)
    symbols = [table[i] for i in range(len(table))]
    del table
    base = status_mb("VmRSS")
    Path("/proc/self/clear_refs").write_text("5")  # the high-water mark, from here
    out = Path(tempfile.mkdtemp()) / "symbols.msgpack"
    t = time.perf_counter()
    if mode == "stream":
        write_symbols(out, symbols)
    else:
        out.write_bytes(pack_symbols(symbols))
    seconds = time.perf_counter() - t
    print(
        f"{len(symbols)} symbols, {mode}: {seconds:.1f} s, "
        f"peak {status_mb('VmHWM') - base} MB above the loaded symbols ({base} MB)"
    )
    out.unlink()


if __name__ == "__main__":
    main()
