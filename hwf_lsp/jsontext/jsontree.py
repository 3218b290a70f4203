"""`parse`: a tree with positions for any string; parsing never fails.

The package's public face, as jsonc-parser's `main.ts` is over its scanner and parser:
valid JSON through `fast_path.py` (json.loads, children built on first use), the rest
through `tolerant_parser.py`; the tree and its queries in `tree.py`.
"""

from __future__ import annotations

import json

from .escapes import source_offset
from .fast_path import DuplicateWatch, peek_member, reject_constant, valid_document
from .tolerant_parser import BOM, BOM_MESSAGE, DEPTH_MESSAGE, MAX_DEPTH, parse_tolerant
from .tree import JsonNode, Member, ParsedDocument, SyntaxIssue, contains, path_of

__all__ = ["BOM", "BOM_MESSAGE", "DEPTH_MESSAGE", "MAX_DEPTH", "JsonNode", "Member",
           "SyntaxIssue", "ParsedDocument", "parse", "source_offset", "contains", "path_of",
           "peek_member"]


def parse(text: str) -> ParsedDocument:
    """Parse `text` (any string): never raises, never recurses.  Valid JSON is decoded by
    `json.loads` and its tree built lazily; anything else goes token by token."""
    watch = DuplicateWatch()
    try:  # json.loads refuses a leading BOM too: that text takes the slow way
        value = json.loads(text, parse_constant=reject_constant, object_pairs_hook=watch)
    except json.JSONDecodeError as error:
        return parse_tolerant(text, error.pos)
    except Exception:  # noqa: BLE001 - anything else json.loads rejects goes the slow way
        return parse_tolerant(text)
    return valid_document(text, value, watch.seen)
