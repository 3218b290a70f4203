"""The containers the last parse scanned, carried through one edit to the next parse.

On broken JSON the tolerant parser (`jsontree._Builder`) tries to scan each container in
C (`valid_container`); on a 5 MB design that is nearly all of a keystroke's cost, though
the keystroke changed one node.  Three rules, checkable by reading:

- a container's scan reads its own characters and nothing else, so a container the edit
  did not touch -- it ends at or before the edit, or starts at or after it -- scans the
  same in the new text, moved by the edit's change in length: its value and length are
  reused instead of scanned again;
- a container whose scan failed last time (it held the error) is read token by token
  again without trying the scan first: reading a container token by token gives the tree
  and value its scan gives, so this changes what it costs, never what it finds;
- a valid text scanned nothing, but its tree knows each item of its `nodes` array: where
  it ends and its value, which is what scanning it would give (`item_scans`, the array
  itself counted as failed by the rule above), so the first keystroke that breaks a valid
  design reuses every node it did not touch.  The text may still be valid: these are
  asked for only once `json.loads` has refused it.

The parser still walks the whole new text and decides for itself where containers start;
a carried scan is only an answer it would have computed.  tests/analysis/test_scan_reuse.py
holds it equal to a parse from scratch over the recovery corpus.  `jsontree._Builder.
_reused_items` places a run of reused items without the token loop's per-token steps.
"""

from __future__ import annotations

from typing import Any

Scan = tuple[int, Any, bool] | None
"""A container's scan: (end offset, decoded value, whether some object in it repeats a
key), or None when it failed."""
Scans = dict[int, Scan]
"""Scans by the container's start offset."""


def through_edit(scans: Scans, start: int, end: int, replacement: str) -> Scans:
    """The scans still true after text[start:end] became `replacement`, in new offsets
    (a failed one is kept where its start is: it is only read token by token again)."""
    delta = len(replacement) - (end - start)
    kept: Scans = {}
    for at, scan in scans.items():
        if scan is None:
            if at < start:
                kept[at] = None
            elif at >= end:
                kept[at + delta] = None
            continue
        stop, value, duplicates = scan
        if stop <= start:
            kept[at] = scan
        elif at >= end:
            kept[at + delta] = (stop + delta, value, duplicates)
    return kept
