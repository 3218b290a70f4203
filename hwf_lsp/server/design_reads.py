"""The designs that open test files name, read once per change of their file.

A test file's diagnostics, completion and hover need the design it names, and a keystroke
is checked on the event loop: read and parsed each time, a 17 MB design held every other
request back (ten keystrokes delayed a hover elsewhere by 4.4-5.5 s, issue 45).  A read is
kept by the file's real path while the file's stamp (device, inode, size, mtime in ns)
holds; a save, an atomic replace or any write changes it, and the file is read again.
The disk stays the truth, as for `hwf test`: an open design's unsaved text is not read.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from hwf_lsp.rules.design_test_check import DesignRead
from hwf_lsp.workflow.design_files import DesignFileError
from hwf_lsp.workflow.design_test_files import read_design_file

KEEP = 4
"""Designs kept (the most recently used): a few test files open at once name a few
designs; an oversized one costs memory only while it is named."""

Stamp = tuple[int, int, int, int]


class DesignReads:
    """`read(path)`: `read_design_file` of `path`, or its last read when the file has not
    changed since.  Used by the event loop and the validation worker at once."""

    def __init__(self) -> None:
        self._reads: dict[str, tuple[Stamp, DesignRead | str]] = {}
        self._lock = threading.Lock()

    def read(self, path: Path) -> DesignRead:
        """The design in `path`: DesignFileError/ValueError when it is none (kept too),
        OSError when it cannot be read (never kept)."""
        key, stamp = str(path), _stamp(path)
        with self._lock:
            kept = self._reads.pop(key, None)
            if kept is not None and kept[0] == stamp:
                self._reads[key] = kept  # the most recently used last
                return _answer(kept[1])
        try:
            value: DesignRead | str = read_design_file(path)
        except (DesignFileError, ValueError) as exc:
            value = str(exc)
        with self._lock:
            self._reads[key] = (stamp, value)
            while len(self._reads) > KEEP:
                del self._reads[next(iter(self._reads))]
        return _answer(value)


def _stamp(path: Path) -> Stamp:
    st = os.stat(path)
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def _answer(value: DesignRead | str) -> DesignRead:
    if isinstance(value, str):
        raise DesignFileError(value)
    return value
