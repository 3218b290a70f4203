"""The tolerant parser: a tree and its syntax issues for text that is not valid JSON.

The editor needs a tree for text that is being typed: an unterminated string, a
missing comma, a trailing comma, an unclosed object at the end.  `parse_tolerant`
returns one for any string plus a list of `SyntaxIssue`s, and never raises or
recurses (an explicit stack; nesting past MAX_DEPTH is one issue, read no further).
It tokenises with one compiled regex and decodes strings with the C `scanstring`, so a
long prompt is one C call, never a per-character Python loop; every container that is
valid JSON as a whole is scanned in C (`fast_path`), so only the containers around the
error go token by token.  Where it picks up after an error: `resync.py`.
"""

from __future__ import annotations

import re
from json.decoder import scanstring as _scanstring
from json.scanner import make_scanner
from typing import Any
from weakref import ref as _ref

from .escapes import LazyPattern, decode_lenient
from .fast_path import (
    SKIP_WS,
    DuplicateWatch,
    StrictDecoder,
    end_before_space,
    lazy_container,
)
from .resync import (
    NODE,
    BracketBalance,
    key_follows,
    member_follows,
    node_follows,
    object_follows,
    stray_closer,
    stray_opener,
    stray_quote,
    string_end,
)
from .tree import JsonNode, Member, ParsedDocument, SyntaxIssue

__all__ = ["BOM", "BOM_MESSAGE", "DEPTH_MESSAGE", "MAX_DEPTH", "parse_tolerant"]

BOM = "\ufeff"
"""A byte order mark.  Whoever reads the file's bytes drops one (editors, `hwf check`
and the stores decode with utf-8-sig), so one left in the TEXT means the file had
two: a syntax error here, as it is for json.loads and for the engine's stores."""
BOM_MESSAGE = ("Unexpected byte order mark (U+FEFF) at the start of the text "
               "(a file may begin with one BOM, not two)")


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

_WS = " \t\n\r"
_PUNCT = "{}[]:,"
_AFTER_STRING = _WS + "{}[]:,\""
"""What may follow a string's closing quote; anything else (a letter) means the quote
opened the next string instead (see resync.string_end)."""
_ARRAY_OF_OBJECTS = re.compile(r'\[[ \t\r\n]*\{[ \t\r\n]*"')
_WORD = LazyPattern(r'[^ \t\n\r{}\[\]:,"]+')
"""A bare word: anything up to whitespace, punctuation or a quote."""
_NEXT_CONTAINER = re.compile(r"[ \t\n\r]*,[ \t\n\r]*(?=[\[{])")
"""A comma and the opening bracket of the next item (`_Builder._valid_items`)."""
_NUMBER = LazyPattern(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_STRING_BODY = LazyPattern(r'[^"\\\r\n]*(?:\\[^\r\n][^"\\\r\n]*)*\\?')
"""The rest of a string up to its closing quote or the end of its line (recovery)."""
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
    """One pass over the text: tokens -> tree and its Python value."""

    def __init__(self, text: str, first_error: int = -1) -> None:
        self.text = text
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
        self.watch = DuplicateWatch()
        self.scan = make_scanner(StrictDecoder(self.watch))
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
        value = decode_lenient(text[quote + 1 : stop], quote + 1, self.issues)
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
        if self._may_hide_a_stray(start, end):
            return None
        seen = watch.seen
        if seen:
            self.duplicates = True
        self.valid_value = value
        return lazy_container("object" if text[start] == "{" else "array", start, end, text,
                               None if seen else value, parent_ref)

    def _may_hide_a_stray(self, start: int, end: int) -> bool:
        """Whether an opener inside this valid container could be stray read token by token
        (`resync.stray_opener`: a `[` before a node that the rest of the text leaves
        unclosed), or its own `]` before a node.  It can only be when the text after the container does not close
        exactly the containers open around it; then the container is read token by token
        too, so both readings agree (the bracket count is made only for an array of
        objects, the one place such an opener can stand in valid JSON)."""
        if self.text[end - 1] == "]" and node_follows(self.text, end - 1):
            return True  # `]{"key":`: its `]` may be stray (typed before a node)
        if _ARRAY_OF_OBJECTS.search(self.text, start + 1, end) is None:
            return False
        if self.balance is None:
            self.balance = BracketBalance(self.text)
        kinds = [frame.node.kind for frame in self.stack]
        return self.balance.closed_after(end) != (kinds.count("object"), kinds.count("array"))

    # the loop ----------------------------------------------------------------
    # One token at a time: read it (`_token`), decide where it goes given the innermost
    # open container's state (`_where`), then put it there (`_place`). Each state of
    # the object and array machines is one method, named after what it expects next.

    def run(self) -> None:
        text = self.text
        n = len(text)
        skip_ws = SKIP_WS.match
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
            if self.stack and self._stray_mark(pos):
                self.issue(f"Unexpected '{text[pos]}'", pos, pos + 1)
                pos = last_end = pos + 1
                continue
            token = self._token(pos)
            pos = last_end = token.end
            where = self._where(token)
            if where is _STOP or (where is not None and not self._place(token, where)):
                break
            if where == "item" and token.node is not None and token.node._source is not None:
                pos = last_end = self._valid_items(pos)
        self._finish(self.stack, last_end, self.too_deep)

    def _stray_mark(self, pos: int, after_item: bool | None = None) -> bool:
        """Whether the quote or opener at `pos` was typed by mistake (`resync.stray_quote`,
        `resync.stray_opener`): skipped, so it costs no node.  `after_item`: right after
        an array's item, no comma between (by default: the innermost container's state)."""
        text = self.text
        char = text[pos]
        if char not in '"{[':
            return False  # only a quote or an opener is ever stray
        state = self.stack[-1].state
        if after_item is None:
            after_item = state == _A_NEXT
        if char == '"':
            return stray_quote(text, pos, after_item)
        if char != "{" and char != "[" or state in (_O_COLON, _O_VALUE):
            return False  # a member's value is never stray
        out_of_place = after_item or node_follows(text, pos) or (
            char == "[" and state in (_O_FIRST, _O_KEY) and key_follows(text, pos))
        if not out_of_place:
            return False
        if self.balance is None:
            self.balance = BracketBalance(text)
        return stray_opener(self.balance, [f.node.kind for f in self.stack], pos)

    def _valid_items(self, pos: int) -> int:
        """The valid containers that follow a valid item of the innermost array, each after
        its comma, placed in one go; returns where the token loop goes on (at the first
        item that is not one).  A design's `nodes` array around an error is mostly such
        items: one C scan each, none of the token machinery."""
        top = self.top
        if top is None or len(self.stack) >= _SCAN_DEPTH:
            return pos
        text, items, values = self.text, top.node._items, top.py
        next_item, node_at = _NEXT_CONTAINER.match, NODE.match
        parent_ref = _ref(top.node)
        while (found := next_item(text, pos)) is not None:
            # an object item is stray only when a node follows its `{` (`_stray_mark`,
            # `node_follows`): asked here first, one match per item of a design's `nodes`
            at = found.end()
            if (text[at] != "{" or node_at(text, at + 1)) \
                    and self._stray_mark(at, after_item=False):
                break  # the token loop reports it
            node = self.valid_container(at, parent_ref)
            if node is None:
                self.invalid_at = at  # the token loop goes on here: no second scan
                break
            items.append(node)
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
            self.top = self._close_mismatched(kind, t.start, t.end)
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
        if t.bad_word is not None:
            return "detached"  # junk is no item: the items after it keep their places
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
            if len(self.stack) > 1 and node_follows(self.text, t.start) \
                    and self._stray("array", t.end):  # `]{"key":` typed before a node
                self.issue("Unexpected ']'", t.start, t.end)
                return None
            if state == _A_VALUE and comma >= 0:
                self.issue("Trailing comma", comma, comma + 1)
            self.top = self._close(t.end)
        elif punct == "}":
            self._close_or_mismatch("object", t, "Unexpected '}'")
        else:  # ':'
            self.issue("Unexpected ':' in an array", t.start, t.end)
        return None

    def _member_in_array(self, top: _Frame, t: _Token, comma: int) -> None:
        """`"key":` in an array.  At `"id"` (a node starts with its id), or after an object,
        an object is missing its '{' and starts here -- unless a stray '}' just closed that
        object and it goes on (another key right after it, or `"id"` right after `{}`: a
        node's `{` then a stray `}`); after other items, the array is missing its ']' and
        the key is its object's."""
        items = top.node._items
        last = items[-1] if items else None
        is_id = t.string_value == "id"
        after_object = last is not None and last.kind == "object"
        if not is_id and not after_object and len(self.stack) > 1 \
                and self.stack[-2].node.kind == "object":
            self._missing_bracket(top, t, comma)
            return
        if (after_object and last.closed and (not is_id or not last.members)
                and self.text[last.end:t.start].strip() in ("", ",")):
            self.issue("Unexpected '}'", last.end - 1, last.end)
            last.members  # noqa: B018 - builds a lazily scanned object's members first
            frame = _Frame(last, _O_KEY, top.py[-1])
            top.state = _A_NEXT  # the reopened object is the array's latest item again
        else:
            self.issue("Expected '{' before a property name", t.start, t.end)
            obj = JsonNode("object", t.start, t.start, None, [], parent=top.node)
            py: dict[str, Any] = {}
            items.append(obj)
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
        end = end_before_space(self.text, comma if comma >= 0 else t.start)
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
        end = end_before_space(self.text, t.start)
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
            self.top = self._close(t.end)
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
            self.top = self._unexpected_in_object(t)
        return None

    def _expect_value(self, top: _Frame, t: _Token) -> str | None:
        if t.is_value:
            return "value"
        if t.punct == "," or t.punct == "}":
            self.issue("Expected a value", t.start, t.end)
            self._next_member_or_close(top, t)
        else:
            self.top = self._unexpected_in_object(t)
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
            self.top = self._unexpected_in_object(t)
        return None

    def _next_member_or_close(self, top: _Frame, t: _Token) -> None:
        """',' starts the next member; '}' closes the object."""
        if t.punct == ",":
            top.comma = t.start
            top.state = _O_KEY
        else:
            self.top = self._close(t.end)

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
            top.py.append(py)
            top.state = _A_NEXT
        elif where == "value":
            node.parent = top.node
            member = top.member
            member.value = node
            node.member = member
            if not top.detached:
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
        if t.punct == "{":
            node = JsonNode("object", t.start, t.end, None, [])
            py: Any = {}
            return node, py, _Frame(node, _O_FIRST, py)
        node = JsonNode("array", t.start, t.end, None, None, [])
        py = []
        return node, py, _Frame(node, _A_FIRST, py)

    def _close(self, end: int) -> _Frame | None:
        stack = self.stack
        frame = stack.pop()
        frame.node.end = end
        self.open_count[frame.node.kind] -= 1
        self._note_duplicates(frame.node)
        return stack[-1] if stack else None

    def _note_duplicates(self, node: JsonNode) -> None:
        members = node._members
        if not self.duplicates and members and len(members) > 1:
            if len({m.key for m in members}) != len(members):
                self.duplicates = True

    def _close_mismatched(self, kind: str, start: int, end: int) -> _Frame | None:
        """A closer for an outer container: the inner ones were never closed."""
        stack = self.stack
        inner = stack[-1].node
        self.issue(f"Expected '{_CLOSER[inner.kind]}' before '{_CLOSER[kind]}'", start, end)
        while stack[-1].node.kind != kind:
            frame = stack.pop()
            frame.node.end = start
            frame.node.closed = False
            self.open_count[frame.node.kind] -= 1
            self._note_duplicates(frame.node)
        return self._close(end)

    def _unexpected_in_object(self, t: _Token) -> _Frame | None:
        if t.punct == "]" and self.open_count["array"] and not self._stray("array", t.end):
            return self._close_mismatched("array", t.start, t.end)
        self.issue(f"Unexpected '{t.punct}'", t.start, t.end)
        return self.stack[-1]

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


def parse_tolerant(text: str, first_error: int = -1) -> ParsedDocument:
    """The document of any text, token by token (`first_error`: where json.loads stopped,
    when known; see `_Builder`)."""
    builder = _Builder(text, first_error)
    builder.run()
    return ParsedDocument(text, builder.root, builder.issues, builder.root_value,
                          builder.duplicates)
