"""A tolerant JSON parser that keeps positions: parsing never fails.

The editor needs a tree for text that is being typed: an unterminated string, a
missing comma, a trailing comma, an unclosed object at the end.  `parse` returns
a tree for any string plus a list of `SyntaxIssue`s, and never raises or
recurses (an explicit stack; nesting past MAX_DEPTH is one issue, read no further).

Speed: this runs on every keystroke on documents up to megabytes.  Valid JSON
(the common case) is first decoded by `json.loads` in C; the positioned tree is
then built only when someone asks for it (`doc.root`).  The tree builder
tokenises with one compiled regex and decodes strings with the C
`scanstring`, so a long prompt is one C call, never a per-character Python loop.

Offsets are Python string indices (code points); see positions.py for lines.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from dataclasses import dataclass
from json.decoder import scanstring as _scanstring
from json.scanner import make_scanner
from typing import Any
from weakref import ref as _ref

from .resync import BracketBalance, member_follows, object_follows, stray_closer, string_end

__all__ = [
    "JsonNode",
    "Member",
    "SyntaxIssue",
    "ParsedDocument",
    "parse",
    "source_offset",
    "contains",
    "peek_member",
]

BOM = "\ufeff"
"""A byte order mark.  Whoever reads the file's bytes drops one (editors, `hwf check`
and the stores decode with utf-8-sig), so one left in the TEXT means the file had
two: a syntax error here, as it is for json.loads and for the engine's stores."""
BOM_MESSAGE = ("Unexpected byte order mark (U+FEFF) at the start of the text "
               "(a file may begin with one BOM, not two)")


class JsonNode:
    """One JSON value in the text.

    Attributes: kind ('object' | 'array' | 'string' | 'number' | 'true' | 'false' |
    'null' | 'invalid'); start (offset of the first character); end (one past the
    last; for an unclosed string/container: where recovery ended); value (scalars:
    the decoded Python value; a number too large to convert is None); members
    (objects: Members in source order, duplicates kept); items (arrays); parent;
    closed (False for an unterminated string or a container without its closer);
    member (the Member whose value this node is; None for items and the root).

    In a valid document the children of a container are found on first access of
    `members`/`items` (one level at a time, skipping nested values in C), so a
    finding deep in a 1 MB design does not pay for building the whole tree.

    `parent` and `member` point upwards through weak references: the tree has no
    reference cycles, so a replaced document is freed at once by reference
    counting instead of by a garbage-collector pass over every node.  They stay
    valid while the document (its root) is alive.
    """

    __slots__ = ("kind", "start", "end", "value", "_members", "_items", "_parent", "closed",
                 "_member", "_source", "_py", "__weakref__")

    def __init__(self, kind: str, start: int, end: int, value: Any = None,
                 members: list[Member] | None = None, items: list[JsonNode] | None = None,
                 parent: JsonNode | None = None, closed: bool = True,
                 member: Member | None = None) -> None:
        self.kind = kind
        self.start = start
        self.end = end
        self.value = value
        self._members = members
        self._items = items
        self._parent = _ref(parent) if parent is not None else None
        self.closed = closed
        self._member = _ref(member) if member is not None else None
        self._source: str | None = None
        """The document text while this (valid) container's children are not built yet."""
        self._py: Any = None
        """Its decoded value while not built, when that mirrors the text (see _lazy_value)."""

    @property
    def members(self) -> list[Member] | None:
        if self._source is not None:
            _expand(self)
        return self._members

    @members.setter
    def members(self, value: list[Member] | None) -> None:
        self._members = value

    @property
    def items(self) -> list[JsonNode] | None:
        if self._source is not None:
            _expand(self)
        return self._items

    @items.setter
    def items(self, value: list[JsonNode] | None) -> None:
        self._items = value

    @property
    def parent(self) -> JsonNode | None:
        """The enclosing object or array (None for the root)."""
        parent = self._parent
        return parent() if parent is not None else None

    @parent.setter
    def parent(self, value: JsonNode | None) -> None:
        self._parent = _ref(value) if value is not None else None

    @property
    def member(self) -> Member | None:
        """The Member whose value this node is (None for array items and the root)."""
        member = self._member
        return member() if member is not None else None

    @member.setter
    def member(self, value: Member | None) -> None:
        self._member = _ref(value) if value is not None else None

    def __repr__(self) -> str:
        return f"JsonNode({self.kind}, {self.start}, {self.end})"


class Member:
    """`"key": value` in an object.

    key_start/key_end: the key's span including its quotes (or where an
    unterminated key ended); value: None when missing (`"key": ` then `,` or
    `}`); colon: offset of the ':' or None when it is missing; parent: the
    object (a weak reference, see JsonNode).
    """

    __slots__ = ("key", "key_start", "key_end", "value", "colon", "_parent", "__weakref__")

    def __init__(self, key: str, key_start: int, key_end: int, value: JsonNode | None,
                 colon: int | None, parent: JsonNode | None = None) -> None:
        self.key = key
        self.key_start = key_start
        self.key_end = key_end
        self.value = value
        self.colon = colon
        self._parent = _ref(parent) if parent is not None else None

    @property
    def parent(self) -> JsonNode | None:
        parent = self._parent
        return parent() if parent is not None else None

    @parent.setter
    def parent(self, value: JsonNode | None) -> None:
        self._parent = _ref(value) if value is not None else None

    @property
    def start(self) -> int:
        return self.key_start

    @property
    def end(self) -> int:
        """End of the value, else of the colon, else of the key."""
        if self.value is not None:
            return self.value.end
        if self.colon is not None:
            return self.colon + 1
        return self.key_end

    def __repr__(self) -> str:
        return f"Member({self.key!r}, {self.key_start}, {self.end})"


@dataclass(slots=True)
class SyntaxIssue:
    msg: str
    start: int
    end: int


MAX_DEPTH = 512
"""Containers nested deeper than this are not read: one issue covers the rest of the text.

A design needs a handful of levels (the root, `nodes`, a node, its `after`).
json.loads -- and so the engine's stores -- gives up near 1000 levels (the
interpreter's recursion limit), so a deeper text could never be loaded or run:
stopping below that keeps the editor's verdict in line with the engine's, makes
10^6-deep text cost milliseconds instead of seconds, and keeps every tree and
`to_python()` value shallow enough for recursive consumers (json.dumps, ==).
A valid text that json.loads reads is never cut (that path does not count depth).
"""
DEPTH_MESSAGE = (f"Nesting deeper than {MAX_DEPTH} levels: the rest of the text is not read "
                 "(a design needs only a few levels)")


# --- tokens ----------------------------------------------------------------


class _LazyPattern:
    """A regex compiled on first use.

    Only text that json.loads rejects (and escaped strings) needs these, so the
    server does not compile them at start-up (import time counts: cold start).
    """

    __slots__ = ("_pattern", "_flags", "_compiled")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._pattern = pattern
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def pattern(self) -> re.Pattern[str]:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self._pattern, self._flags)
        return compiled


_WS = " \t\n\r"
_PUNCT = "{}[]:,"
_AFTER_STRING = _WS + "{}[]:,\""
"""What may follow a string's closing quote; anything else (a letter) means the quote
opened the next string instead (see resync.string_end)."""
_WORD = _LazyPattern(r'[^ \t\n\r{}\[\]:,"]+')
"""A bare word: anything up to whitespace, punctuation or a quote."""
_SKIP_WS = re.compile(r"[ \t\n\r]*")
_MEMBER_HEAD = re.compile(r'"(?:[^"\\]|\\.)*(")[ \t\n\r]*(:)[ \t\n\r]*', re.S)
"""A key of valid JSON, its colon and the blanks up to its value (`peek_member`): groups 1
and 2 are the key's closing quote and the colon."""
_COMMA = re.compile(r"[ \t\n\r]*,?[ \t\n\r]*")
"""The blanks and the comma between a member's value and the next key."""
_NEXT_CONTAINER = re.compile(r"[ \t\n\r]*,[ \t\n\r]*(?=[\[{])")
"""A comma and the opening bracket of the next item (`_Builder._valid_items`)."""
_NUMBER = _LazyPattern(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_STRING_BODY = _LazyPattern(r'[^"\\\r\n]*(?:\\[^\r\n][^"\\\r\n]*)*\\?')
"""The rest of a string up to its closing quote or the end of its line (recovery)."""
_ESCAPE = _LazyPattern(r'\\(?:u([0-9a-fA-F]{4})|(["\\/bfnrt])|(.?))', re.S)
_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n",
                   "r": "\r", "t": "\t"}
_CONTROL = _LazyPattern(r"[\x00-\x1f]")
_LITERALS = {"true": True, "false": False, "null": None}
_NOT_JSON_NUMBERS = {"NaN", "Infinity", "-Infinity", "+Infinity"}


def _number_value(word: str, match: re.Match[str]) -> int | float | None:
    """A JSON number's value as json.loads gives it; None when it cannot be converted."""
    try:
        if match.group(1) is None and match.group(2) is None:
            return int(word)
        return float(word)
    except (ValueError, OverflowError):
        return None


def _decode_lenient(raw: str, base: int, issues: list[SyntaxIssue]) -> str:
    """Decode a string body that `scanstring` rejected, noting each problem."""
    for bad in _CONTROL.pattern.finditer(raw):
        issues.append(SyntaxIssue("Invalid control character in string (escape it)",
                                  base + bad.start(), base + bad.end()))
    if "\\" not in raw:
        return raw
    out: list[str] = []
    pos = 0
    pending_high: int | None = None  # index in `out` of a \uD8xx awaiting its pair
    for esc in _ESCAPE.pattern.finditer(raw):
        if esc.start() > pos:
            out.append(raw[pos : esc.start()])
            pending_high = None
        pos = esc.end()
        hex_digits, simple, other = esc.groups()
        if hex_digits is not None:
            code = int(hex_digits, 16)
            if pending_high is not None and 0xDC00 <= code <= 0xDFFF:
                high = ord(out[pending_high])
                out[pending_high] = chr(0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00))
                pending_high = None
                continue
            out.append(chr(code))
            pending_high = len(out) - 1 if 0xD800 <= code <= 0xDBFF else None
            continue
        pending_high = None
        if simple is not None:
            out.append(_SIMPLE_ESCAPES[simple])
        else:
            issues.append(SyntaxIssue("Invalid escape sequence in string",
                                      base + esc.start(), base + esc.end()))
            out.append(other or "")
    out.append(raw[pos:])
    return "".join(out)


# --- the parser ------------------------------------------------------------

# Frame states.  Objects: expecting a key or '}' (first), a key after ',', a colon,
# a value, or ',' / '}'.  Arrays: a value or ']' (first), a value after ',', ',' / ']'.
_O_FIRST, _O_KEY, _O_COLON, _O_VALUE, _O_NEXT = range(5)
_A_FIRST, _A_VALUE, _A_NEXT = range(5, 8)
_CLOSER = {"object": "}", "array": "]"}


class _Frame:
    __slots__ = ("node", "state", "member", "detached", "py", "comma")

    def __init__(self, node: JsonNode, state: int, py: Any) -> None:
        self.node = node
        self.state = state
        self.member: Member | None = None
        self.detached = False
        """The current member is a bare-word key kept out of `members`."""
        self.py = py
        self.comma = -1
        """Offset of a ',' that is this container's latest token, else -1 (trailing comma)."""


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


class _DuplicateWatch:
    """object_pairs_hook for json.loads: builds dicts as json.loads does, notes duplicates."""

    __slots__ = ("seen",)

    def __init__(self) -> None:
        self.seen = False

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result = dict(pairs)
        if len(result) != len(pairs):
            self.seen = True
        return result


class _StrictDecoder(json.JSONDecoder):
    """Decodes exactly what the builder accepts: no NaN/Infinity, duplicates watched."""

    def __init__(self, watch: _DuplicateWatch) -> None:
        super().__init__(parse_constant=_reject_constant, object_pairs_hook=watch)


_SCAN_DEPTH = 64
"""Try the C scanner on containers at most this deep (its recursion is limited)."""


_STOP = object()
"""`_Builder._where`: the rest of the text is not parsed."""


class _Token:
    """One token of the slow path: where it is, what it is, and its node if already built."""

    __slots__ = ("start", "end", "punct", "node", "bad_word", "string_value", "string_closed")

    def __init__(self, start: int, end: int, punct: str, node: JsonNode | None = None,
                 bad_word: str | None = None, string_value: str | None = None,
                 string_closed: bool = True) -> None:
        self.start = start
        self.end = end
        self.punct = punct
        """'"' for a string, the mark for punctuation, "" for a bare word."""
        self.node = node
        """A scalar word's node, or a nested container that is valid JSON as a whole."""
        self.bad_word = bad_word
        self.string_value = string_value
        self.string_closed = string_closed

    @property
    def is_value(self) -> bool:
        """A value token: a scalar, a string, or the opener of a container."""
        return self.node is not None or self.punct in '{["'

    @property
    def token_end(self) -> int:
        """Issues about a token point at its first character only when it is a whole
        scanned container (token by token it would be just the bracket)."""
        return self.start + 1 if self.punct == "{" or self.punct == "[" else self.end


class _Builder:
    """One pass over the text: tokens -> tree (+ Python value when asked)."""

    def __init__(self, text: str, with_values: bool, first_error: int = -1) -> None:
        self.text = text
        self.with_values = with_values
        self.first_error = first_error
        """Where json.loads stopped on this text, when known: an array opened before it
        is read item by item, since scanning the one that holds the error whole would
        go up to it in vain (a design's `nodes`: half the text on every keystroke)."""
        self.issues: list[SyntaxIssue] = []
        self.root: JsonNode | None = None
        self.root_value: Any = None
        self.valid_value: Any = None
        self.duplicates = False
        """Whether some object repeats a key (lets duplicate_keys skip its walk)."""
        self.watch = _DuplicateWatch()
        self.scan = make_scanner(_StrictDecoder(self.watch))
        self.invalid_at = -1
        """Where `_valid_items` found a container that is not valid JSON as a whole."""
        self.balance: BracketBalance | None = None
        """The text's bracket balance, for a closer that matches an outer container."""

    def issue(self, msg: str, start: int, end: int) -> None:
        """Record a problem, once per range: one bad token gets one message."""
        issues = self.issues
        if issues and issues[-1].start == start and issues[-1].end == end:
            return
        issues.append(SyntaxIssue(msg, start, end))

    # scalars ---------------------------------------------------------------

    def string(self, quote: int) -> tuple[str, int, bool]:
        """(decoded value, end, closed) of the string starting at `quote`.

        A string without its closing quote ends at the end of its line: while
        typing, the rest of the line is what the user means to be in it -- but not
        the separators that end the line, nor those before the next string's opening
        quote (`resync.string_end`).
        """
        text = self.text
        try:
            value, end = _scanstring(text, quote + 1, True)
        except ValueError:
            stop = _STRING_BODY.pattern.match(text, quote + 1).end()
            closed = stop < len(text) and text[stop] == '"'
        else:
            if end >= len(text) or text[end] in _AFTER_STRING:
                return value, end, True
            stop, closed = end - 1, True
        cut = string_end(text, quote, stop, closed)
        if cut is not None:  # it swallowed the separators after it: it ends before them
            stop, closed = cut, False
        value = _decode_lenient(text[quote + 1 : stop], quote + 1, self.issues)
        if closed:
            return value, stop + 1, True
        self.issue("Unterminated string", quote, stop)
        return value, stop, False

    def word(self, word: str, start: int, end: int) -> tuple[JsonNode, str | None]:
        """A bare word as a value node, and what is wrong with it (reported once placed)."""
        if word in _LITERALS:
            return JsonNode(word, start, end, _LITERALS[word]), None
        match = _NUMBER.pattern.fullmatch(word)
        if match is not None:
            return JsonNode("number", start, end, _number_value(word, match)), None
        if word in _NOT_JSON_NUMBERS:
            return JsonNode("invalid", start, end), f"{word} is not a valid JSON number"
        shown = word if len(word) <= 30 else word[:30] + "…"
        return JsonNode("invalid", start, end), f"Unexpected '{shown}': expected a JSON value"

    def valid_container(self, start: int, parent_ref: Any = None) -> JsonNode | None:
        """A container at `start` that is valid JSON as a whole, scanned in C; else None.

        Most of a document being typed is valid: only the containers around the
        error go token by token, everything else costs one C call.
        """
        watch = self.watch
        watch.seen = False
        text = self.text
        try:
            value, end = self.scan(text, start)
        except (ValueError, RecursionError, StopIteration):
            return None
        seen = watch.seen
        if seen:
            self.duplicates = True
        self.valid_value = value if self.with_values else None
        return _lazy_container("object" if text[start] == "{" else "array", start, end, text,
                               None if seen else value, parent_ref)

    # the loop ----------------------------------------------------------------
    # One token at a time: read it (`_token`), decide where it goes given the innermost
    # open container's state (`_where`), then put it there (`_place`). Each state of
    # the object and array machines is one method, named after what it expects next.

    def run(self) -> None:
        text = self.text
        n = len(text)
        skip_ws = _SKIP_WS.match
        pos = 0
        while pos < n and text[pos] == BOM:
            pos += 1
        if pos:  # see BOM: reported once, then skipped so the tree is kept
            self.issue(BOM_MESSAGE, 0, pos)
        self.stack: list[_Frame] = []
        self.open_count = {"object": 0, "array": 0}
        self.top: _Frame | None = None
        self.done = False  # the root value is complete
        self.too_deep = False  # stopped at MAX_DEPTH
        last_end = pos
        while pos < n:
            if text[pos] in _WS:
                pos = skip_ws(text, pos).end()
                if pos >= n:
                    break
            token = self._token(pos)
            pos = last_end = token.end
            where = self._where(token)
            if where is _STOP or (where is not None and not self._place(token, where)):
                break
            if where == "item" and token.node is not None and token.node._source is not None:
                pos = last_end = self._valid_items(pos)
        self._finish(self.stack, last_end, self.too_deep)

    def _valid_items(self, pos: int) -> int:
        """The valid containers that follow a valid item of the innermost array, each after
        its comma, placed in one go; returns where the token loop goes on (at the first
        item that is not one).  A design's `nodes` array around an error is mostly such
        items: one C scan each, none of the token machinery."""
        top = self.top
        if top is None or len(self.stack) >= _SCAN_DEPTH:
            return pos
        text, items, values = self.text, top.node._items, top.py
        next_item = _NEXT_CONTAINER.match
        parent_ref = _ref(top.node)
        while (found := next_item(text, pos)) is not None:
            node = self.valid_container(found.end(), parent_ref)
            if node is None:
                self.invalid_at = found.end()  # the token loop goes on here: no second scan
                break
            items.append(node)
            if values is not None:
                values.append(self.valid_value)
            pos = node.end
        return pos

    def _token(self, start: int) -> _Token:
        """The token at `start`: a string, a punctuation mark (a valid nested container
        is scanned whole, in C), or a bare word (a literal, a number, or junk)."""
        text = self.text
        punct = text[start]
        if punct == '"':
            value, end, closed = self.string(start)
            return _Token(start, end, punct, None, None, value, closed)
        if punct in _PUNCT:
            node = None
            # The root is skipped: json.loads has just rejected the whole text.
            if (punct == "{" or (punct == "[" and start >= self.first_error)) \
                    and 0 < len(self.stack) < _SCAN_DEPTH and start != self.invalid_at:
                node = self.valid_container(start)
            return _Token(start, node.end if node else start + 1, punct, node)
        end = _WORD.pattern.match(text, start).end()
        node, bad_word = self.word(text[start:end], start, end)
        return _Token(start, end, "", node, bad_word)

    def _where(self, t: _Token) -> str | None | object:
        """Where the token goes ("root", "item", "value", "detached"), None when it was
        consumed here (a separator, a closer, a key, an error), _STOP to end the parse."""
        top = self.top
        if top is None:
            if self.done:
                self.issue("End of file expected", t.start, t.end)
                return _STOP
            if not t.is_value:
                self.issue(f"Unexpected '{t.punct}': expected a JSON value", t.start, t.end)
                return None
            return "root"
        # A comma is trailing only when the closer comes right after it; any other
        # token in between (even a bad one) already got its own issue.
        comma = top.comma
        top.comma = -1
        if top.state >= _A_FIRST:
            return self._in_array(top, t, comma)
        state = top.state
        if t.punct == '"' and state in (_O_NEXT, _O_COLON, _O_VALUE):
            state = self._string_then_colon_is_a_key(top, t, state)
        if state in (_O_FIRST, _O_KEY):
            return self._expect_key(top, t, comma, state)
        if state == _O_COLON:
            return self._expect_colon(top, t)
        if state == _O_VALUE:
            return self._expect_value(top, t)
        return self._expect_comma_or_close(top, t)

    def _close_or_mismatch(self, kind: str, t: _Token, alone: str) -> None:
        """A closer of `kind` where the innermost container is of the other kind: it closes
        the inner containers, unless it is stray (`resync.stray_closer`)."""
        if self.open_count[kind] and not self._stray(kind, t.end):
            self.top = self._close_mismatched(self.stack, self.open_count, kind, t.start, t.end)
        else:
            self.issue(alone, t.start, t.end)

    def _stray(self, kind: str, end: int) -> bool:
        if self.balance is None:
            self.balance = BracketBalance(self.text)
        return stray_closer(self.balance, [f.node.kind for f in self.stack], kind, end)

    def _in_array(self, top: _Frame, t: _Token, comma: int) -> str | None:
        state, punct = top.state, t.punct
        if punct == '"' and member_follows(self.text, t.end):
            self._member_in_array(top, t, comma)
            return None
        if t.is_value:
            if state == _A_NEXT:
                self.issue("Expected ',' or ']' after an item", t.start, t.token_end)
            return "item"
        if punct == ",":
            if state != _A_NEXT:
                self.issue("Expected a value before ','", t.start, t.end)
            top.comma = t.start
            top.state = _A_VALUE
        elif punct == "]":
            if state == _A_VALUE and comma >= 0:
                self.issue("Trailing comma", comma, comma + 1)
            self.top = self._close(self.stack, self.open_count, t.end)
        elif punct == "}":
            self._close_or_mismatch("object", t, "Unexpected '}'")
        else:  # ':'
            self.issue("Unexpected ':' in an array", t.start, t.end)
        return None

    def _member_in_array(self, top: _Frame, t: _Token, comma: int) -> None:
        """`"key":` in an array.  At `"id"` (a node starts with its id), or after an object,
        an object is missing its '{' and starts here -- unless a stray '}' just closed that
        object and it goes on (another key right after it); after other items, the array
        is missing its ']' and the key is its object's."""
        items = top.node._items
        last = items[-1] if items else None
        is_id = t.string_value == "id"
        after_object = last is not None and last.kind == "object"
        if not is_id and not after_object and len(self.stack) > 1 \
                and self.stack[-2].node.kind == "object":
            self._missing_bracket(top, t, comma)
            return
        if (not is_id and after_object and last.closed
                and self.text[last.end:t.start].strip() in ("", ",")):
            self.issue("Unexpected '}'", last.end - 1, last.end)
            last.members  # noqa: B018 - builds a lazily scanned object's members first
            frame = _Frame(last, _O_KEY, top.py[-1] if self.with_values else None)
            top.state = _A_NEXT  # the reopened object is the array's latest item again
        else:
            self.issue("Expected '{' before a property name", t.start, t.end)
            obj = JsonNode("object", t.start, t.start, None, [], parent=top.node)
            py: Any = {} if self.with_values else None
            items.append(obj)
            if self.with_values:
                top.py.append(py)
            top.state = _A_NEXT
            frame = _Frame(obj, _O_FIRST, py)
        self.open_count["object"] += 1
        self.stack.append(frame)
        self.top = frame
        self._begin_member(frame, Member(t.string_value, t.start, t.end, None, None, frame.node),
                           detached=False)

    def _missing_bracket(self, top: _Frame, t: _Token, comma: int) -> None:
        """The array before `"key":` is missing its ']': it ends at its last item, and the
        key is the next member of the object around it."""
        end = _end_before_space(self.text, comma if comma >= 0 else t.start)
        if comma >= 0:
            self.issue("Expected ']' before ','", comma, comma + 1)
        else:
            self.issue("Expected ']' after the last item", end, end)
        self.stack.pop()
        top.node.end = end
        top.node.closed = False
        self.open_count["array"] -= 1
        owner = self.top = self.stack[-1]
        self._begin_member(owner, Member(t.string_value, t.start, t.end, None, None, owner.node),
                           detached=False)

    def _next_object(self, t: _Token, comma: int) -> bool:
        """A '{' opening `{"key":` where a key or ',' belongs: the objects open inside the
        innermost array are missing their '}', and the '{' is that array's next item.
        False (nothing done) when no array is open or the '{' opens no property."""
        stack = self.stack
        index = len(stack) - 1
        while index >= 0 and stack[index].node.kind == "object":
            index -= 1
        if index < 0 or not object_follows(self.text, t.start):
            return False
        end = _end_before_space(self.text, t.start)
        issues = self.issues
        if not issues or issues[-1].start < stack[index + 1].node.start:  # one error, one issue
            if comma >= 0:
                self.issue("Expected '}' before ','", comma, comma + 1)
            else:
                self.issue("Expected '}' after the last member", end, end)
        while len(stack) > index + 1:
            frame = stack.pop()
            frame.node.end = end
            frame.node.closed = False
            self.open_count["object"] -= 1
            self._note_duplicates(frame.node)
        self.top = stack[index]
        return True

    def _string_then_colon_is_a_key(self, top: _Frame, t: _Token, state: int) -> int:
        """A string followed by ':' is a new key, whatever came before: report what the
        previous member lacks (nothing more for a bare word, already reported) and start
        a new one."""
        if not member_follows(self.text, t.end):
            return state
        if state == _O_NEXT:
            if not self._reported_after(top.member):  # junk before it: one error is enough
                self.issue("Expected ',' or '}' after a member", t.start, t.end)
        elif state == _O_COLON:
            if not top.detached:
                self._missing_colon(top)
        else:
            colon = top.member.colon
            self.issue("Expected a value", colon, colon + 1)
        top.state = _O_KEY
        return _O_KEY

    def _reported_after(self, member: Member | None) -> bool:
        """Whether an issue was reported past the end of `member` (the junk after it)."""
        issues = self.issues
        return bool(issues) and member is not None and issues[-1].start >= member.end

    def _missing_colon(self, top: _Frame) -> None:
        self.issue("Expected ':' after the property name",
                   top.member.key_start, top.member.key_end)

    def _expect_key(self, top: _Frame, t: _Token, comma: int, state: int) -> str | None:
        punct = t.punct
        if punct == '"':
            self._begin_member(top, Member(t.string_value, t.start, t.end, None, None, top.node),
                               detached=False)
        elif punct == "}":
            if state == _O_KEY and comma >= 0:
                self.issue("Trailing comma", comma, comma + 1)
            self.top = self._close(self.stack, self.open_count, t.end)
        elif punct == "{" and self._next_object(t, comma):
            return "item"
        elif punct == "{" or punct == "[":
            self.issue("Expected a property name in double quotes", t.start, t.token_end)
            return "detached"
        elif t.node is not None:  # a bare word where a key belongs: kept out of the value
            self.issue("Expected a property name in double quotes", t.start, t.end)
            key = Member(self.text[t.start : t.end], t.start, t.end, None, None, top.node)
            self._begin_member(top, key, detached=True)
        elif punct == "]":
            self._close_or_mismatch("array", t, "Unexpected ']'")
        else:
            self.issue(f"Unexpected '{punct}': expected a property name", t.start, t.end)
        return None

    @staticmethod
    def _begin_member(top: _Frame, member: Member, *, detached: bool) -> None:
        if not detached:
            top.node._members.append(member)
        top.member = member
        top.detached = detached
        top.state = _O_COLON

    def _expect_colon(self, top: _Frame, t: _Token) -> str | None:
        punct = t.punct
        if punct == ":":
            top.member.colon = t.start
            top.state = _O_VALUE
            return None
        if t.is_value:
            self._missing_colon(top)
            return "value"
        if punct == "," or punct == "}":
            self._missing_colon(top)
            self._next_member_or_close(top, t)
        else:
            self.top = self._unexpected_in_object(self.stack, self.open_count, punct,
                                                  t.start, t.end)
        return None

    def _expect_value(self, top: _Frame, t: _Token) -> str | None:
        if t.is_value:
            return "value"
        if t.punct == "," or t.punct == "}":
            self.issue("Expected a value", t.start, t.end)
            self._next_member_or_close(top, t)
        else:
            self.top = self._unexpected_in_object(self.stack, self.open_count, t.punct,
                                                  t.start, t.end)
        return None

    def _expect_comma_or_close(self, top: _Frame, t: _Token) -> str | None:
        if t.punct == "," or t.punct == "}":
            self._next_member_or_close(top, t)
        elif t.punct == "{" and self._next_object(t, -1):
            return "item"
        elif t.is_value:
            if not self._reported_after(top.member):
                self.issue("Expected ',' or '}' after a member", t.start, t.token_end)
            return "detached"
        else:
            self.top = self._unexpected_in_object(self.stack, self.open_count, t.punct,
                                                  t.start, t.end)
        return None

    def _next_member_or_close(self, top: _Frame, t: _Token) -> None:
        """',' starts the next member; '}' closes the object."""
        if t.punct == ",":
            top.comma = t.start
            top.state = _O_KEY
        else:
            self.top = self._close(self.stack, self.open_count, t.end)

    def _place(self, t: _Token, where: str) -> bool:
        """Put a value token where `_where` said; False when it would nest too deep."""
        if t.bad_word is not None:
            self.issue(t.bad_word, t.start, t.end)
        node, py, frame = self._value_of(t)
        if node is None:  # '{' or '[' past MAX_DEPTH
            self.issue(DEPTH_MESSAGE, t.start, len(self.text))
            self.too_deep = True
            return False
        top = self.top
        if where == "item":
            node.parent = top.node
            top.node._items.append(node)
            if self.with_values:
                top.py.append(py)
            top.state = _A_NEXT
        elif where == "value":
            node.parent = top.node
            member = top.member
            member.value = node
            node.member = member
            if self.with_values and not top.detached:
                top.py[member.key] = py
            top.state = _O_NEXT
        elif where == "root":
            self.root = node
            self.root_value = py
            self.done = True
        else:  # "detached": parsed for balance, kept out of the tree's members/items
            node.parent = top.node
        if frame is not None:
            self.open_count[node.kind] += 1
            self.stack.append(frame)
            self.top = frame
        return True

    def _value_of(self, t: _Token) -> tuple[JsonNode | None, Any, _Frame | None]:
        """(node, Python value, frame to open) of a value token; no node when a new
        container would nest deeper than MAX_DEPTH."""
        node = t.node
        if t.punct == '"':
            return (JsonNode("string", t.start, t.end, t.string_value, None, None, None,
                             t.string_closed), t.string_value, None)
        if node is not None:
            # a valid container scanned whole, or a scalar word
            return node, self.valid_value if node._source is not None else node.value, None
        if len(self.stack) >= MAX_DEPTH:
            return None, None, None
        with_values = self.with_values
        if t.punct == "{":
            node = JsonNode("object", t.start, t.end, None, [])
            py: Any = {} if with_values else None
            return node, py, _Frame(node, _O_FIRST, py)
        node = JsonNode("array", t.start, t.end, None, None, [])
        py = [] if with_values else None
        return node, py, _Frame(node, _A_FIRST, py)

    def _close(self, stack: list[_Frame], open_count: dict[str, int], end: int) -> _Frame | None:
        frame = stack.pop()
        frame.node.end = end
        open_count[frame.node.kind] -= 1
        self._note_duplicates(frame.node)
        return stack[-1] if stack else None

    def _note_duplicates(self, node: JsonNode) -> None:
        members = node._members
        if not self.duplicates and members and len(members) > 1:
            if len({m.key for m in members}) != len(members):
                self.duplicates = True

    def _close_mismatched(self, stack: list[_Frame], open_count: dict[str, int], kind: str,
                          start: int, end: int) -> _Frame | None:
        """A closer for an outer container: the inner ones were never closed."""
        inner = stack[-1].node
        self.issue(f"Expected '{_CLOSER[inner.kind]}' before '{_CLOSER[kind]}'", start, end)
        while stack[-1].node.kind != kind:
            frame = stack.pop()
            frame.node.end = start
            frame.node.closed = False
            open_count[frame.node.kind] -= 1
            self._note_duplicates(frame.node)
        return self._close(stack, open_count, end)

    def _unexpected_in_object(self, stack: list[_Frame], open_count: dict[str, int],
                              punct: str, start: int, end: int) -> _Frame | None:
        if punct == "]" and open_count["array"] and not self._stray("array", end):
            return self._close_mismatched(stack, open_count, "array", start, end)
        self.issue(f"Unexpected '{punct}'", start, end)
        return stack[-1]

    def _finish(self, stack: list[_Frame], last_end: int, too_deep: bool) -> None:
        n = len(self.text)
        if self.root is None:
            self.issue("Expected a JSON value", last_end if last_end < n else n, n)
            return
        if not stack:
            return
        top = stack[-1]
        if not too_deep:  # else the depth issue already covers everything after the cut
            if top.state == _O_COLON:
                self.issue("Expected ':' after the property name",
                           top.member.key_start, top.member.key_end)
            elif top.state == _O_VALUE:
                self.issue("Expected a value", last_end, last_end)
            self.issue(f"Expected '{_CLOSER[top.node.kind]}' before the end of the text",
                       last_end, last_end)
        for frame in stack:
            frame.node.end = n
            frame.node.closed = False
            self._note_duplicates(frame.node)


# --- lazy tree for valid JSON -------------------------------------------------

_SCAN_ONCE = make_scanner(json.JSONDecoder())
"""C scanner: (value, end) of the JSON value at an offset; used to skip nested values."""
_SCALAR_KIND = {"\"": "string", "t": "true", "f": "false", "n": "null"}


def _lazy_value(text: str, pos: int, parent: JsonNode | None, end: int = -1,
                py: Any = None) -> JsonNode:
    """The node for the (valid) value at `pos`; a container's children come later.

    `end`, when known (the last child of a container ends where its parent's
    closer does), saves scanning the value.  `py` is the container's decoded
    value when it is known to mirror the text (no duplicate keys): its length
    tells which child is the last one.
    """
    first = text[pos]
    if first == "{" or first == "[":
        if end < 0:
            end = _SCAN_ONCE(text, pos)[1]
        node = JsonNode("object" if first == "{" else "array", pos, end, parent=parent)
        node._source = text
        node._py = py if isinstance(py, dict | list) else None
        return node
    value, end = _SCAN_ONCE(text, pos)
    return JsonNode(_SCALAR_KIND.get(first, "number"), pos, end, value, parent=parent)


def _end_before_space(text: str, pos: int) -> int:
    """Offset just past the last non-whitespace character before `pos`."""
    while pos > 0 and text[pos - 1] in _WS:
        pos -= 1
    return pos


_OBJECTS_APART = re.compile(r"\}[ \t\n\r]*,[ \t\n\r]*\{")
"""Where one object ends and the next begins: `}`, a comma and `{`, JSON blanks between."""


def _object_spans(text: str, first: int, last_end: int,
                  count: int) -> tuple[list[int], list[int]] | None:
    """(starts, ends) of the items of a valid array of `count` objects, from the first
    item's start to the last one's end, found by the count - 1 boundaries between them;
    None when the count differs.  One C regex pass: 3 ms for a 5,000-node design, where
    scanning each item to its end (it is decoded again) took ~25 ms.

    Why a count of n - 1 proves the spans: every two neighbouring items are separated by
    `}` blanks `,` blanks `{` outside any string, and no other match can overlap one of
    those (a match ends with `{`, a boundary starts with `}`), so all n - 1 are found; a
    match inside a string or between nested objects would make more."""
    starts = [first]
    ends = []
    for match in _OBJECTS_APART.finditer(text, first, last_end):
        ends.append(match.start() + 1)
        starts.append(match.end() - 1)
    if len(starts) != count:
        return None
    ends.append(last_end)
    return starts, ends


def _object_items(node: JsonNode, text: str, first: int, last_end: int,
                  py: list[Any]) -> list[JsonNode] | None:
    """The items of a valid array of objects, by `_object_spans`, or None."""
    spans = _object_spans(text, first, last_end, len(py))
    if spans is None:
        return None
    parent_ref = _ref(node)
    lazy_container = _lazy_container
    return [lazy_container("object", start, end, text, sub, parent_ref)
            for start, end, sub in zip(*spans, py, strict=True)]


def _lazy_container(kind: str, start: int, end: int, source: str, py: Any,
                    parent_ref: Any) -> JsonNode:
    """An object or array of valid text whose children are built when asked (`py`: its
    value, when that mirrors the text; `parent_ref`: a weak reference to its parent, shared
    by its siblings).  Every slot set here, no `__init__` call: a 5,000-node design makes
    5,000 of these per keystroke, at 0.3 us each instead of 0.5-0.6 us
    (tests/analysis/test_jsontree.py holds it to JsonNode's slots)."""
    node = _NEW_NODE(JsonNode)
    node.kind = kind
    node.start = start
    node.end = end
    node.value = node._members = node._items = node._member = None
    node.closed = True
    node._parent = parent_ref
    node._source = source
    node._py = py
    return node


_NEW_NODE = JsonNode.__new__


def _expand(node: JsonNode) -> None:
    """Build one level of children of a container from text known to be valid JSON, once.
    `_lazy_value` is inlined and the parent's weak reference shared by all children: checks
    expand a few dozen containers on every keystroke.

    No lock: a document is used by one thread at a time (the server's worker hands an
    analysis to the event loop and never touches it again), so a node's children are
    built once and found by identity in their parent's list."""
    text = node._source
    py = node._py
    skip = _SKIP_WS.match
    scan = _SCAN_ONCE
    scalar_kind = _SCALAR_KIND
    new_node = JsonNode
    parent_ref = _ref(node)
    pos = skip(text, node.start + 1).end()
    last = len(py) - 1 if py is not None else -1
    last_end = _end_before_space(text, node.end - 1) if py is not None else -1
    is_array = node.kind == "array"
    if is_array and py and all(type(item) is dict for item in py):
        # an array of objects (a design's `nodes`): its items' spans from the boundaries
        # between them, not by decoding each item again (50 nodes: 0.18 -> 0.10 ms)
        found = _object_items(node, text, pos, last_end, py)
        if found is not None:
            node._items = found
            node._source = node._py = None
            return
    index = 0
    if is_array:
        items: list[JsonNode] = []
        closer = "]"
    else:
        members: list[Member] = []
        closer = "}"
    if text[pos] != closer:
        while True:
            if not is_array:
                key, key_end = _scanstring(text, pos + 1, True)
                colon = skip(text, key_end).end()
                key_start = pos
                pos = skip(text, colon + 1).end()
            first = text[pos]
            if first == "{" or first == "[":
                end = last_end if index == last else scan(text, pos)[1]
                child = new_node("object" if first == "{" else "array", pos, end)
                child._source = text
                if py is not None:
                    sub = py[index] if is_array else py[key]
                    child._py = sub if isinstance(sub, dict | list) else None
            else:
                value, end = scan(text, pos)
                child = new_node(scalar_kind.get(first, "number"), pos, end, value)
            child._parent = parent_ref
            if is_array:
                items.append(child)
            else:
                member = Member(key, key_start, key_end, child, colon)
                member._parent = parent_ref
                child._member = _ref(member)
                members.append(member)
            pos = skip(text, end).end()
            if text[pos] != ",":
                break
            pos = skip(text, pos + 1).end()
            index += 1
    if is_array:
        node._items = items
    else:
        node._members = members
    node._source = node._py = None


# --- the document ----------------------------------------------------------

_UNSET: Any = object()


class ParsedDocument:
    """The text, its tree (built on first use for valid JSON) and its syntax issues."""

    __slots__ = ("text", "_root", "_errors", "_value", "_has_duplicates")

    def __init__(self, text: str) -> None:
        self.text = text
        self._root: JsonNode | None = _UNSET
        self._errors: list[SyntaxIssue] | None = None
        self._value: Any = _UNSET
        self._has_duplicates: bool | None = None

    # --- lazily built state ---

    def _build(self, with_values: bool, first_error: int = -1) -> None:
        builder = _Builder(self.text, with_values, first_error)
        builder.run()
        self._root = builder.root
        self._errors = builder.issues
        self._has_duplicates = builder.duplicates
        if with_values:
            self._value = builder.root_value

    @property
    def root(self) -> JsonNode | None:
        """The tree's root value; None when the text holds no value at all."""
        if self._root is _UNSET:
            self._build(with_values=self._value is _UNSET)
        return self._root

    @property
    def errors(self) -> list[SyntaxIssue]:
        """Syntax issues in source order of discovery (empty for valid JSON)."""
        if self._errors is None:
            self._build(with_values=self._value is _UNSET)
        return self._errors

    @property
    def is_valid(self) -> bool:
        return not self.errors

    def to_python(self) -> Any:
        """The recovered value: duplicate keys keep the last; invalid tokens and
        numbers too large to convert are None; members without a value are dropped."""
        if self._value is _UNSET:
            self._build(with_values=True)
        return self._value

    # --- queries ---

    def node_at_path(self, path: tuple[str | int, ...] | list[str | int]) -> JsonNode | None:
        """The value at `path` (keys: the member that counts, i.e. the last one)."""
        node = self.root
        for step in path:
            if node is None:
                return None
            if isinstance(step, str):
                member = _last_member(node, step)
                node = member.value if member is not None else None
            else:
                items = node.items
                if items is None or not 0 <= step < len(items):
                    return None
                node = items[step]
        return node

    def member_at_path(self, path: tuple[str | int, ...] | list[str | int]) -> Member | None:
        """The member at `path`, e.g. ("nodes", 3, "retries"); the last one with that key."""
        if not path or not isinstance(path[-1], str):
            return None
        owner = self.node_at_path(tuple(path[:-1]))
        return _last_member(owner, path[-1]) if owner is not None else None

    def path_to_offset(self, offset: int) -> list[JsonNode | Member]:
        """Nodes and members enclosing `offset`, outermost first, innermost last.

        A closed string or container encloses the offsets strictly between its
        delimiters; a number, literal, invalid token or unclosed element also
        encloses its end (the cursor right after a half-typed word is "in" it).
        A Member is listed when the offset is in its key, colon or value span.
        """
        chain: list[JsonNode | Member] = []
        node = self.root
        while node is not None and contains(node, offset):
            chain.append(node)
            if node.members:
                member = _member_at(node.members, offset)
                if member is None:
                    break
                chain.append(member)
                node = member.value
            elif node.items:
                node = _item_at(node.items, offset)
            else:
                break
        return chain

    def duplicate_keys(self) -> list[Member]:
        """Members whose key appears again later in the same object (the ones that lose)."""
        if self._has_duplicates is False:
            return []
        found: list[Member] = []
        root = self.root
        stack = [root] if root is not None else []
        while stack:
            node = stack.pop()
            if node._source is not None and node._py is not None:
                continue  # not built yet and known to mirror a decoded value: no repeats
            if node.members is not None:
                last: dict[str, Member] = {}
                for member in node.members:
                    last[member.key] = member
                    if member.value is not None:
                        stack.append(member.value)
                if len(last) != len(node.members):
                    found.extend(m for m in node.members if last[m.key] is not m)
            elif node.items:
                stack.extend(node.items)
        found.sort(key=lambda m: m.key_start)
        return found


def contains(node: JsonNode, offset: int) -> bool:
    """Whether `offset` is inside `node` (see ParsedDocument.path_to_offset)."""
    if node.closed and node.kind in ("object", "array", "string"):
        return node.start < offset < node.end
    return node.start <= offset <= node.end


def _last_member(node: JsonNode, key: str) -> Member | None:
    if node.members is None:
        return None
    for member in reversed(node.members):
        if member.key == key:
            return member
    return None


def peek_member(node: JsonNode | None, key: str) -> Member | None:
    """The member of object `node` that counts for `key` (the last of that name), for its
    offsets.  In an object whose members are not built yet, and whose decoded value mirrors
    the text, only the members before it are skipped (in C) and none is built: locating a
    finding needs one member of each node it names, and a keystroke locates a few dozen.
    Such a member is not one of `node.members` (built later, when asked): use it for where
    it is, never for identity."""
    if node is None:
        return None
    py = node._py
    if node._source is None or not isinstance(py, dict):
        return _last_member(node, key)
    if key not in py:
        return None
    text = node._source
    head = _MEMBER_HEAD.match
    comma = _COMMA.match
    pos = _SKIP_WS.match(text, node.start + 1).end()
    for name in py:  # a mirrored object's keys are its members, in source order
        found = head(text, pos)
        if name == key:
            member = Member(key, pos, found.end(1), None, found.start(2), node)
            member.value = _lazy_value(text, found.end(), node, -1, py[key])
            return member
        pos = comma(text, _SCAN_ONCE(text, found.end())[1]).end()
    return None


def _member_at(members: list[Member], offset: int) -> Member | None:
    index = bisect_right(members, offset, key=lambda m: m.key_start) - 1
    if index < 0:
        return None
    member = members[index]
    return member if member.key_start <= offset <= member.end else None


def _item_at(items: list[JsonNode], offset: int) -> JsonNode | None:
    index = bisect_right(items, offset, key=lambda n: n.start) - 1
    if index < 0:
        return None
    item = items[index]
    return item if contains(item, offset) else None


def path_of(target: JsonNode | Member) -> tuple[str | int, ...]:
    """The path from the root to a node or member, e.g. ("nodes", 3, "after", 0)."""
    steps: list[str | int] = []
    node: JsonNode | None
    if isinstance(target, Member):
        steps.append(target.key)
        node = target.parent
    else:
        node = target
    while node is not None and node.parent is not None:
        parent = node.parent
        if node.member is not None:
            steps.append(node.member.key)
        elif parent.items is not None:
            index = bisect_right(parent.items, node.start, key=lambda n: n.start) - 1
            steps.append(index)
        node = parent
    steps.reverse()
    return tuple(steps)


def source_offset(text: str, node: JsonNode, index: int) -> int:
    """Offset in `text` of character `index` of a string node's decoded value.

    Escapes make decoded and source indices differ (`\\n` is 2 source characters,
    `\\ud83d\\ude00` is 12 for one character); `index == len(value)` maps to the
    end of the last character.  Clamped, never raising.  A span to the end of a closed
    string ends at its closing quote: no walk through a megabyte of `\\u0000` (1.3 s).
    """
    body_start = node.start + 1
    body_end = node.end - 1 if node.closed else node.end
    if index <= 0:
        return body_start
    if node.closed and isinstance(node.value, str) and index >= len(node.value):
        return body_end
    raw = text[body_start:body_end]
    if "\\" not in raw:
        return body_start + min(index, len(raw))
    decoded = 0
    pos = 0
    escape = _ESCAPE.pattern
    while pos < len(raw) and decoded < index:
        if raw[pos] != "\\":
            backslash = raw.find("\\", pos)
            if backslash < 0:
                backslash = len(raw)
            take = min(backslash - pos, index - decoded)
            pos += take
            decoded += take
            continue
        esc = escape.match(raw, pos)
        hex_digits = esc.group(1)
        pos = esc.end()
        if hex_digits is not None and 0xD800 <= int(hex_digits, 16) <= 0xDBFF:
            pair = escape.match(raw, pos)
            if pair is not None and pair.group(1) is not None and \
                    0xDC00 <= int(pair.group(1), 16) <= 0xDFFF:
                pos = pair.end()  # one decoded character for the surrogate pair
        decoded += 1
    return body_start + pos


# --- entry point -------------------------------------------------------------


def parse(text: str) -> ParsedDocument:
    """Parse `text` (any string): never raises, never recurses.  Valid JSON is decoded by
    `json.loads` and its tree built lazily; anything else goes token by token."""
    doc = ParsedDocument(text)
    watch = _DuplicateWatch()
    try:  # json.loads refuses a leading BOM too: that text takes the slow way
        value = json.loads(text, parse_constant=_reject_constant, object_pairs_hook=watch)
    except json.JSONDecodeError as error:
        doc._build(with_values=True, first_error=error.pos)
        return doc
    except Exception:  # noqa: BLE001 - anything else json.loads rejects goes the slow way
        doc._build(with_values=True)
        return doc
    return _valid(doc, value, watch.seen)


def _valid(doc: ParsedDocument, value: Any, has_duplicates: bool) -> ParsedDocument:
    text = doc.text
    doc._value = value
    doc._errors = []
    doc._has_duplicates = has_duplicates
    start = _SKIP_WS.match(text).end()
    end = _end_before_space(text, len(text))
    doc._root = _lazy_value(text, start, None, end, None if has_duplicates else value)
    return doc
