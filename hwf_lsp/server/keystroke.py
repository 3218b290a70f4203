"""The keystroke's notification read without cattrs: didChange params from plain JSON.

Every keystroke is a `textDocument/didChange`.  Structuring it with cattrs and going
through pygls's generic dispatch (a future, a uuid, a generator step) cost about 0.3 ms
of a 10 KB design's ~2 ms keystroke.  `did_change_params` builds the same lsprotocol
params directly when the message has exactly the shape LSP gives it, and says None for
anything else: then the message takes the generic path, with its error handling.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types

_UINTEGER_MAX = 2**31 - 1
_TEXT_DOCUMENT_KEYS = frozenset({"uri", "version"})
_PARAMS_KEYS = frozenset({"textDocument", "contentChanges"})
_CHANGE_KEYS = frozenset({"text"})
_RANGED_CHANGE_KEYS = frozenset({"text", "range"})
_RANGED_CHANGE_WITH_LENGTH_KEYS = frozenset({"text", "range", "rangeLength"})


def did_change_params(params: Any) -> types.DidChangeTextDocumentParams | None:
    """The structured params of a didChange whose `params` are exactly the LSP shape (no
    extra keys, integers in range); None when cattrs should judge them instead."""
    if type(params) is not dict or params.keys() != _PARAMS_KEYS:
        return None
    document, changes = params["textDocument"], params["contentChanges"]
    if type(document) is not dict or document.keys() != _TEXT_DOCUMENT_KEYS \
            or type(changes) is not list:
        return None
    uri, version = document["uri"], document["version"]
    if type(uri) is not str or type(version) is not int:
        return None
    structured = []
    for change in changes:
        change = _change(change)
        if change is None:
            return None
        structured.append(change)
    return types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=tuple(structured))


def _change(change: Any) -> types.TextDocumentContentChangeEvent | None:
    if type(change) is not dict or type(change.get("text")) is not str:
        return None
    keys = change.keys()
    if keys == _CHANGE_KEYS:
        return types.TextDocumentContentChangeWholeDocument(text=change["text"])
    if keys != _RANGED_CHANGE_KEYS and keys != _RANGED_CHANGE_WITH_LENGTH_KEYS:
        return None
    rng = change["range"]
    if type(rng) is not dict or rng.keys() != {"start", "end"}:
        return None
    start, end = _position(rng["start"]), _position(rng["end"])
    length = change.get("rangeLength")
    if start is None or end is None or not (length is None or _uinteger(length)):
        return None
    return types.TextDocumentContentChangePartial(
        range=types.Range(start=start, end=end), text=change["text"], range_length=length)


def _position(position: Any) -> types.Position | None:
    if type(position) is not dict or position.keys() != {"line", "character"}:
        return None
    line, character = position["line"], position["character"]
    if not (_uinteger(line) and _uinteger(character)):
        return None
    return types.Position(line=line, character=character)


def _uinteger(value: Any) -> bool:
    return type(value) is int and 0 <= value <= _UINTEGER_MAX
