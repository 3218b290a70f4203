"""Which copy of a stored design the dashboard tab edits, so its Save cannot silently
overwrite a newer one.

The tab reads a design, keeps a draft of it for minutes or days (docs/hermes.md,
"Dashboard tab"), then saves. Meanwhile Hermes' chat tools, cron, `hwf`, VS Code or
another tab may have written the file. So the graph route gives the tab the stored
text's revision, Save sends it back as `base`, and the route refuses (409) when the
file's revision is no longer that one.

A revision is the SHA-256 of the file's UTF-8 text, not its mtime and size: a second
write in the same clock tick, or of the same length, keeps those; a design is at most a
few hundred KB, so hashing it on a read the route makes anyway costs next to nothing.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from hwf_lsp.workflow.atomic import dump_json
from hwf_lsp.workflow.stores import read_text_file, stored_form, written_as_is

__all__ = ["revision_of", "stored_revision", "written_revision"]


def revision_of(text: str) -> str:
    """The revision of a design file whose text is `text` (an opaque string to clients)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def stored_revision(path: Path) -> str | None:
    """The revision of the design file at `path` now; None when there is none (deleted).
    An unreadable entry raises ValueError, as every store read does."""
    try:
        return revision_of(read_text_file(path))
    except FileNotFoundError:
        return None


def written_revision(name: str, design: dict[str, Any], text: str | None = None) -> str:
    """The revision of the file `DesignStore.save(name, design, text)` writes, computed
    from what it writes (reading the file back could see a later writer's copy)."""
    if text is not None and written_as_is(name, design, text):
        return revision_of(text)
    return revision_of(dump_json(stored_form(name, design)).decode("utf-8"))
