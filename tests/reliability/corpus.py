"""The bad-input corpus: texts (and raw bytes) that a design file might hold on a bad day.

`corpus(scale)` yields `Case`s.  scale "test" keeps `make test` fast (every
prefix of every example, nesting up to 10^6, one 10 MB design); "soak" adds
bigger and more numerous variants.  A case whose `text` is None exists only as
bytes on disk (invalid UTF-8): the CLI must refuse it with exit 2; it cannot
travel over LSP, whose messages are JSON strings.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = [p for p in sorted((REPO / "examples").glob("*.json"))
            + sorted((REPO / "examples").glob("*/*.json"))
            if not p.name.endswith(".hwf-test.json")]  # design tests, not designs

NESTING_DEPTHS = (10, 100, 1_000, 10_000, 100_000, 1_000_000)
MEGABYTE = 1_000_000


@dataclass(frozen=True, slots=True)
class Case:
    label: str
    text: str | None
    data: bytes
    """What goes on disk (the UTF-8 of `text`, or hostile bytes when `text` is None)."""

    @property
    def size(self) -> int:
        return len(self.data)


def _case(label: str, text: str) -> Case:
    return Case(label, text, text.encode("utf-8", "surrogatepass"))


def _bytes_case(label: str, data: bytes) -> Case:
    return Case(label, None, data)


def _design(nodes: list, **extra) -> dict:
    return {"name": "corpus", **extra, "nodes": nodes}


TRIGGER = {"id": "t", "type": "trigger"}


def _agent(**fields) -> dict:
    return {"id": "a", "type": "agent", "prompt": "p", "after": ["t"], **fields}


def example_texts() -> list[tuple[str, str]]:
    return [(str(path.relative_to(REPO)), path.read_text(encoding="utf-8")) for path in EXAMPLES]


def prefixes(stride: int = 1) -> Iterator[Case]:
    """Every prefix of every example (the empty one and the whole file included)."""
    for name, text in example_texts():
        for end in range(0, len(text) + 1, stride):
            yield _case(f"prefix {name}[:{end}]", text[:end])
        if len(text) % stride:
            yield _case(f"prefix {name}[:{len(text)}]", text)


def nesting(depths: tuple[int, ...] = NESTING_DEPTHS, *, all_shapes_to: int = 10**6) -> Iterator[Case]:
    """Arrays nested to every depth; other shapes up to `all_shapes_to`.

    (A million nested objects takes the checker ~6 s; `make test` keeps one
    million-deep array and leaves the other million-deep shapes to the soak.)
    """
    for depth in depths:
        yield _case(f"array nested {depth}", "[" * depth + "]" * depth)
        if depth > all_shapes_to:
            continue
        yield _case(f"array nested {depth}, unclosed", "[" * depth)
        yield _case(f"object nested {depth}", '{"a":' * depth + "1" + "}" * depth)
        yield _case(f"object nested {depth}, unclosed", '{"a":' * depth)
        inner = "[" * depth + "]" * depth
        yield _case(f"prompt nested {depth}",
                    '{"name": "n", "nodes": [{"id": "t", "type": "trigger"}, '
                    '{"id": "a", "type": "agent", "after": ["t"], "prompt": ' + inner + "}]}")


def big(megabytes: int = 10, *, many_nodes: bool = True) -> Iterator[Case]:
    """Big texts; `many_nodes` adds a design of ~170k nodes (25 s in the server: soak only)."""
    size = megabytes * MEGABYTE
    note = {"id": "n", "type": "note", "text": "x" * size}
    yield _case(f"{megabytes} MB note", json.dumps(_design([TRIGGER, note])))
    yield _case(f"{megabytes} MB of spaces", " " * size)
    yield _case(f"{megabytes} MB on one line, unterminated string", '{"name": "' + "y" * size)
    if many_nodes:
        count = size // 60
        many = [{"id": f"n{i}", "type": "agent", "prompt": "p", "after": ["t"]}
                for i in range(count)]
        yield _case(f"{megabytes} MB design of {count} nodes", json.dumps(_design([TRIGGER, *many])))


def odd_values() -> Iterator[Case]:
    hello = (REPO / "examples" / "hello-world.hwf.json").read_text(encoding="utf-8")
    valid = json.dumps(_design([TRIGGER, _agent()]))
    yield _case("BOM + valid design", "\ufeff" + hello)
    yield _case("BOM only", "\ufeff")
    yield _case("two BOMs", "\ufeff\ufeff" + hello)
    yield _case("CRLF design", hello.replace("\n", "\r\n"))
    yield _case("lone CR design", hello.replace("\n", "\r"))
    yield _case("U+2028 and U+2029 as line breaks", hello.replace("\n", "\u2028", 3)
                .replace("\n", "\u2029", 3))
    yield _case("form feed and vertical tab", hello.replace("\n", "\f\v", 5))
    yield _case("lone high surrogate, raw", '{"name": "\ud800", "nodes": []}')
    yield _case("lone low surrogate, raw", '{"nodes": [{"id": "\udfff"}]}')
    yield _case("lone surrogates, escaped", '{"name": "\\ud800", "nodes": [{"id": "\\udc00", '
                '"type": "trigger"}]}')
    yield _case("surrogate pair split by an edit", '{"name": "\ud83d')
    yield _case("astral characters everywhere", json.dumps(_design(
        [{"id": "\U0001f600", "type": "trigger"}, _agent(after=["\U0001f600"], prompt="\U0001f4a9")]),
        ensure_ascii=False))
    yield _case("NUL and control characters", '{"name": "a\x00b", "nodes": [\x01\x02\x1b]}')
    yield _case("duplicate top-level keys", '{"name": "a", "name": "b", "nodes": [], "nodes": ['
                '{"id": "t", "type": "trigger"}]}')
    yield _case("duplicate node keys", '{"name": "a", "nodes": [{"id": "t", "id": "u", '
                '"type": "trigger", "type": "agent"}]}')
    yield _case("duplicate node ids", json.dumps(_design([TRIGGER, TRIGGER])))
    for literal in ("NaN", "Infinity", "-Infinity", "-NaN", "+1", "0x10", "1e99999",
                    "-1e99999", "1" * 5000, "-" + "9" * 5000, "0." + "0" * 4999 + "1",
                    "1e-99999", "1." + "5" * 5000, "01", ".5", "1.", "--1"):
        yield _case(f"retries = {literal[:20]}", valid.replace('"prompt": "p"',
                                                               f'"prompt": "p", "retries": {literal}'))
    yield _case("timeout 5000 digits", valid.replace('"prompt": "p"',
                                                     '"prompt": "p", "timeout_minutes": ' + "4" * 5000))
    yield _case("number key position", valid.replace('"name"', "5000"))
    for label, text in (("a list", "[]"), ("a list of nodes", json.dumps([TRIGGER, _agent()])),
                        ("a number", "42"), ("a huge number", "9" * 5000), ("a string", '"hi"'),
                        ("null", "null"), ("true", "true"), ("false", "false"), ("empty", ""),
                        ("whitespace", " \n\t\r\n "), ("two values", "{} {}"),
                        ("trailing comma", '{"nodes": [1,],}'), ("comment", "// hi\n{}"),
                        ("single quotes", "{'name': 'x'}"), ("nodes not a list", '{"nodes": 5}'),
                        ("nodes of junk", '{"nodes": [1, "a", null, [], true]}'),
                        ("after of junk", json.dumps(_design([TRIGGER, _agent(after=[1, None,
                                                                                    {"a": 1}])])))):
        yield _case(f"design that is {label}", text)
    for label, expression in (
        ("1 MB condition", "out.a.x == " + "1" * MEGABYTE),
        ("condition 10k segments deep", "out.a" + ".b" * 10_000 + " == 1"),
        ("condition 10k parentheses", "(" * 10_000 + "out.a.x == 1" + ")" * 10_000),
        ("condition of NULs", "\x00" * 1000),
        ("condition not a string", 5),
    ):
        yield _case(label, json.dumps(_design([TRIGGER, _agent(), {
            "id": "c", "type": "condition", "expression": expression, "after": ["a"]}])))


def invalid_utf8() -> Iterator[Case]:
    yield _bytes_case("invalid UTF-8: lone continuation byte", b'{"name": "\x80"}')
    yield _bytes_case("invalid UTF-8: 0xFF 0xFE", b"\xff\xfe{}")
    yield _bytes_case("invalid UTF-8: truncated sequence", b'{"name": "\xe2\x82"}')
    yield _bytes_case("invalid UTF-8: encoded surrogate", b'{"name": "\xed\xa0\x80"}')
    yield _bytes_case("invalid UTF-8: overlong NUL", b'{"name": "\xc0\x80"}')
    yield _bytes_case("UTF-16 with BOM", '{"nodes": []}'.encode("utf-16"))


def corpus(scale: str = "test") -> Iterator[Case]:
    """Every case; "soak" makes the big ones bigger."""
    yield from prefixes()
    yield from nesting(all_shapes_to=10**5 if scale == "test" else 10**6)
    yield from odd_values()
    yield from big(10)
    if scale != "test":
        yield from big(30)
    yield from invalid_utf8()

