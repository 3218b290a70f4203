"""From raw results to ratios, growth fits, target verdicts, the markdown table and the plot."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.stats import growth_exponent

HWF, FLOOR, PEER, PEER_PULL = "hwf-lsp", "floor", "peer", "peer-pull"
TARGET_SIZES = ("size-10k", "size-100k", "size-1m")
LARGE_DOC = "size-5m"
FLOOR_RATIO_LIMIT = 3.0
BEYOND_LIMITS_DOCS = ("size-5m", "nodes-5000")
"""Past the rulebook's limits (50 nodes): every request answered."""
REQUEST_OPS = ("completion", "hover", "completion-after-edit", "hover-after-edit")
COLD_START_LIMIT = 1.2
RUNNER_STEP_LIMIT_MS = 2.0


@dataclass(frozen=True, slots=True)
class Change:
    """One didChange workload: which one-character edit (gen.Doc.offset_of), how it is sent,
    and its row name (`op`) and label in the report."""

    op: str
    edit: str
    full: bool
    label: str


CHANGES: tuple[Change, ...] = (
    Change("change", "prompt", False, "prompt keystroke"),
    Change("change-id", "id", False, "id keystroke"),
    Change("change-break", "break", False, "JSON-breaking keystroke"),
    Change("change-full", "prompt", True, "prompt keystroke, full text"),
    Change("change-id-full", "id", True, "id keystroke, full text"),
    Change("change-break-full", "break", True, "JSON-breaking keystroke, full text"),
)
"""didChange rows: one character replaced in a prompt (free text), in the middle node's id
(every reference to it breaks: a real re-check) or after that id's value (the JSON breaks);
each sent as a range edit and as the whole new text (`contentChanges: [{text}]`)."""
CHANGE_OPS: dict[str, str] = {change.op: change.label for change in CHANGES}
PROMPT_CHANGE, ID_CHANGE = "change", "change-id"
PUSH_PEER_OPS = (PROMPT_CHANGE, ID_CHANGE)
"""The only edits the push peer is measured with: its 500 ms debounce makes every sample
cost half a second, and `peer-pull` measures its checking on every edit."""


def _row(rows: list[dict[str, Any]], server: str, doc: str, op: str) -> dict[str, Any] | None:
    for row in rows:
        if row["server"] == server and row["doc"] == doc and row["op"] == op:
            return row
    return None


def _ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b <= 0:
        return None
    return round(a / b, 3)


def ratios(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """hwf-lsp's p50 (and p99) over the floor's and the peers', per document and action."""
    out: list[dict[str, Any]] = []
    docs = list(dict.fromkeys(row["doc"] for row in rows))
    for doc in docs:
        for op in ("open", *CHANGE_OPS, *REQUEST_OPS):
            ours = _row(rows, HWF, doc, op)
            if ours is None:
                continue
            entry: dict[str, Any] = {"doc": doc, "op": op}
            for other in (FLOOR, PEER, PEER_PULL):
                theirs = _row(rows, other, doc, op)
                if theirs is not None:
                    entry[f"p50_vs_{other}"] = _ratio(ours["p50_ms"], theirs["p50_ms"])
                    entry[f"p99_vs_{other}"] = _ratio(ours["p99_ms"], theirs["p99_ms"])
            out.append(entry)
    return out


def growth(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Fitted exponent of p50 latency against document bytes (50 nodes) and against nodes."""
    out: list[dict[str, Any]] = []
    servers = list(dict.fromkeys(row["server"] for row in rows))
    for server in servers:
        for op in ("open", *CHANGE_OPS, "completion", "hover"):
            for axis, prefix, key in (("bytes", "size-", "bytes"), ("nodes", "nodes-", "nodes")):
                series = [r for r in rows if r["server"] == server and r["op"] == op
                          and r["doc"].startswith(prefix) and r["p50_ms"] is not None]
                fit = growth_exponent([r[key] for r in series], [r["p50_ms"] for r in series])
                if fit is not None:
                    out.append({"server": server, "op": op, "against": axis, **fit})
    return out


def _verdict(target: str, measured: str, holds: bool | None,
             op: str | None = None) -> dict[str, Any]:
    """`op`: the latency rows the verdict was read from (profiles replay that workload)."""
    return {"target": target, "measured": measured, "holds": holds, "op": op}


def change_ratio_holds(ratio: float) -> bool:
    """hwf-lsp's p50 over the floor's: within 3× (the target, bench/README.md)."""
    return ratio <= FLOOR_RATIO_LIMIT


def _change_verdicts(rows: list[dict[str, Any]], by_doc: dict[tuple[str, str], dict[str, Any]],
                     op: str) -> list[dict[str, Any]]:
    """The 3×-floor target at 10 KB, 100 KB and 1 MB, read from the didChange rows of `op`.
    The peers are compared in the tables, not judged: no target is set on them.
    A verdict is decided only when every target size was measured (not in a smoke run)."""
    docs = {row["doc"] for row in rows}
    complete = all(doc in docs for doc in TARGET_SIZES)
    known = [(d, r) for d in TARGET_SIZES
             if (r := by_doc.get((d, op), {}).get(f"p50_vs_{FLOOR}")) is not None]
    return [_verdict(
        f"didChange→diagnostics ({CHANGE_OPS[op]}) p50 ≤ {FLOOR_RATIO_LIMIT:g}× floor at 10 KB, 100 KB, 1 MB",
        ", ".join(f"{d.removeprefix('size-')}: {r}×" for d, r in known) or "not measured",
        all(change_ratio_holds(r) for _, r in known) if complete and known else None,
        op)]


def _beyond_limits_verdict(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Beyond the rulebook's limits (5 MB, 5,000 nodes) every request is answered: no
    didChange, completion or hover sample of hwf-lsp failed or timed out there."""
    checked = [r for r in rows if r["server"] == HWF and r["doc"] in BEYOND_LIMITS_DOCS
               and r["op"] in (*CHANGE_OPS, *REQUEST_OPS)]
    failed = sum(r.get("failures") or 0 for r in checked)
    return _verdict(
        "every request answered at 5 MB and 5,000 nodes (didChange, completion, hover)",
        f"{len(checked)} workloads, {failed} unanswered samples" if checked else "not measured",
        failed == 0 if checked else None)


def targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Each performance target (bench/README.md, "Targets") with the figure that decides it (None: not measured).
    The didChange targets are judged on both edits, the prompt keystroke and the id keystroke."""
    rows = results["latency"]
    by_doc = {(r["doc"], r["op"]): r for r in results["ratios"]}
    verdicts: list[dict[str, Any]] = []
    for op in CHANGE_OPS:
        verdicts += _change_verdicts(rows, by_doc, op)
    for op in REQUEST_OPS:
        when = " (sent right after a didChange)" if op.endswith("after-edit") else ""
        known = [(d, r) for d in TARGET_SIZES
                 if (r := by_doc.get((d, op), {}).get(f"p50_vs_{FLOOR}")) is not None]
        verdicts.append(_verdict(
            f"{op.split('-')[0]}{when} p50 ≤ {FLOOR_RATIO_LIMIT:g}× floor at 10 KB, 100 KB, 1 MB",
            ", ".join(f"{d.removeprefix('size-')}: {r}×" for d, r in known) or "not measured",
            all(r <= FLOOR_RATIO_LIMIT for _, r in known)
            if len(known) == len(TARGET_SIZES) else None, op))
    verdicts.append(_beyond_limits_verdict(rows))
    typing = results["typing"].get(HWF)
    if typing and "no_stale" in typing:
        verdicts.append(_verdict(
            "typing (200 keystrokes, 10 ms): never an older version after a newer, ends on last",
            f"{typing['publishes']} publishes, increasing={typing['strictly_increasing']}, "
            f"ends on final={typing['ends_on_final']}, "
            f"last keystroke → final publish {_fmt(typing.get('end_ms'))} ms",
            bool(typing["no_stale"])))
    else:
        verdicts.append(_verdict("typing test: no stale publish, ends on last", "not measured",
                                 None))
    cold = results["cold_start"].get(HWF)
    verdicts.append(_verdict(
        "cold start to initialize ≤ 1.2× import pygls",
        f"{cold['ratio_to_import_pygls']}× ({cold['median_ms']} ms)" if cold else "not measured",
        cold["ratio_to_import_pygls"] <= COLD_START_LIMIT if cold else None))
    runner = results["engine"].get("runner", {})
    step = runner.get("overhead_per_step_ms")
    floor = runner.get("disk_floor_per_write_ms")
    verdicts.append(_verdict(
        "runner persistence overhead ≤ 2 ms per step with fsync",
        (f"{step} ms/step (disk alone: {floor} ms per durable write, same window)"
         if step is not None else runner.get("error", "not measured")),
        step <= RUNNER_STEP_LIMIT_MS if step is not None else None))
    return verdicts


# --- markdown -------------------------------------------------------------------------------


def _fmt(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.3g}" if value < 100 else f"{value:.0f}"
    return str(value)


def _table(header: list[str], lines: list[list[Any]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(_fmt(v) for v in line) + " |" for line in lines]
    return out


def markdown(results: dict[str, Any]) -> str:
    meta = results["meta"]
    rows = results["latency"]
    servers = [name for name, s in results["servers"].items() if s["available"]]
    md: list[str] = [
        "# hwf-lsp benchmark" + (" (smoke)" if meta["smoke"] else ""),
        "",
        f"{meta['date']} · {meta['machine']} · Python {meta['python']} · pygls {meta['pygls']}"
        f" · node {meta['node']} · {meta['peer_package']} · text sync {meta['text_sync']}"
        f" · {meta['samples']} samples per latency (requests: {meta['request_samples']})"
        f" · run took {meta.get('seconds')} s"
        + (" (" + ", ".join(f"{k} {v} s" for k, v in meta["phase_seconds"].items()) + ")"
           if meta.get("phase_seconds") else ""),
        "",
        "Latency in ms, client in a separate process over stdio, p50 / p90 / p99. "
        "Servers take turns on each document in the same run, and on each didChange workload "
        "sample by sample.",
        "",
    ]
    for name, server in results["servers"].items():
        state = "" if server["available"] else "UNAVAILABLE: "
        md.append(f"- **{name}** ({server['diagnostics']}): {state}{server['note']}")
    md += [
        "",
        "Notes: the peer pushes diagnostics 500 ms after the last change (a fixed debounce in "
        "vscode-json-languageserver) and without a version, so `peer` is mostly that delay and "
        "`peer-pull` (textDocument/diagnostic, no debounce) is its checking cost. The peer "
        "validates only if its settings say `json.validate.enable: true` (sent here); settings "
        "without it make it publish empty lists. The schema cannot see every rulebook defect "
        "(e.g. a condition naming a missing node), hence fewer peer diagnostics on 50 nodes; on "
        "500+ nodes the rulebook stops at graph shape (one defect) while the schema peer still "
        "checks every node (a maxItems error plus each node's field defects). "
        "Design rule: at most 50 nodes, so the runner figures use a trigger + 49 steps.",
        "",
        "Three didChange edits, each one character replaced (alternating x/y) in the middle of "
        "the document: a **prompt keystroke** (free text), an **id keystroke** (a digit of the "
        "middle node's id: every reference to that node breaks, so the design must be checked "
        "again) and a **JSON-breaking keystroke** (a letter in place of the comma after that "
        "id: the text stops being JSON). Each is sent as a range edit and, as some clients do, "
        "as the whole new text (`contentChanges: [{text}]`, the \"full text\" rows). The edits "
        "are made one after the other on the same open document, each undone before the next "
        "and before completion and hover. The push peer is measured with the two range-edit "
        "keystrokes of earlier runs only (each of its samples waits out its debounce); "
        "`peer-pull` with every edit. "
        f"Every latency takes {meta['samples']} samples.",
        "",
        "## Targets",
    ]
    md += _table(["target", "measured", "holds"],
                 [[t["target"], t["measured"],
                   {True: "yes", False: "**NO**", None: "not measured"}[t["holds"]]]
                  for t in results["targets"]])
    for op, title in (*((c.op, f"didChange → publishDiagnostics, {c.label}") for c in CHANGES),
                      ("open", "didOpen → publishDiagnostics")):
        md += ["", f"## {title} (p50 / p90 / p99 ms)"]
        header = ["document", "bytes", "nodes"] + servers + ["hwf/floor p50", "hwf/peer p50",
                                                            "hwf/peer-pull p50", "diags hwf/peer"]
        lines = []
        for doc in results["documents"]:
            line: list[Any] = [doc["name"], doc["bytes"], doc["nodes"]]
            for server in servers:
                row = _row(rows, server, doc["name"], op)
                line.append(f"{_fmt(row['p50_ms'])} / {_fmt(row['p90_ms'])} / "
                            f"{_fmt(row['p99_ms'])}" + (f" ({row['failures']} lost)"
                                                        if row["failures"] else "")
                            if row else "—")
            ratio = next((r for r in results["ratios"] if r["doc"] == doc["name"]
                          and r["op"] == op), {})
            line += [ratio.get(f"p50_vs_{s}") for s in (FLOOR, PEER, PEER_PULL)]
            ours, peer = _row(rows, HWF, doc["name"], op), _row(rows, PEER_PULL, doc["name"], op)
            line.append(f"{_fmt(ours and ours['diagnostics'])} / "
                        f"{_fmt(peer and peer['diagnostics'])}")
            lines.append(line)
        md += _table(header, lines)
    md += ["", "## What each server found on size-10k (first messages of the last publish; "
           "after the id keystroke, those naming the edited node if any do)"]
    for op, label in CHANGE_OPS.items():
        for server in servers:
            row = _row(rows, server, "size-10k", op)
            if row is not None and row.get("sample"):
                md.append(f"- {server}, after the {label}: "
                          + "; ".join(f"`{m}`" for m in row["sample"]))
    md += ["", "## Completion and hover (p50 / p99 ms; 'after edit': the request follows a "
           "didChange at once)"]
    request_ops = ("completion", "hover", "completion-after-edit", "hover-after-edit")
    req_servers = [s for s in servers if any(r["server"] == s and r["op"] in request_ops
                                             for r in rows)]
    lines = []
    for doc in results["documents"]:
        line = [doc["name"]]
        for server in req_servers:
            for op in request_ops:
                row = _row(rows, server, doc["name"], op)
                line.append(f"{_fmt(row['p50_ms'])} / {_fmt(row['p99_ms'])}" if row else "—")
        lines.append(line)
    md += _table(["document"] + [f"{s} {op}" for s in req_servers for op in request_ops],
                 lines)
    md += ["", "## Typing test (50-node design, incremental one-char didChange)"]
    lines = []
    for server, t in results["typing"].items():
        lines.append([server, t["keystrokes"], t.get("final_version"), t.get("publishes"),
                      t.get("end_ms") and round(t["end_ms"], 1),
                      t.get("no_stale", t.get("note"))])
    md += _table(["server", "keystrokes", "final version", "publishes",
                  "last keystroke → final publish ms", "no stale version / ends on final"],
                 lines)
    md += ["", "## Cold start (median; spawn → initialize result, and → first diagnostics of "
           "review-flow opened right after)"]
    md += _table(["process", "n", "→ initialize ms", "× import pygls", "→ first diagnostics ms",
                  "× import pygls"],
                 [[name, c["n"], c["median_ms"], c["ratio_to_import_pygls"],
                   c.get("first_diagnostics_ms", "—"), c.get("first_diagnostics_ratio", "—")]
                  for name, c in results["cold_start"].items()])
    rss = results["rss_after_largest"]
    md += ["", f"## Peak RSS (VmHWM) after opening and editing {rss['doc']} ({rss['bytes']} B)"]
    md += _table(["server", "VmHWM MiB", "error"],
                 [[name, v["vmhwm_kb"] and round(v["vmhwm_kb"] / 1024, 1), v["error"]]
                  for name, v in rss.items() if isinstance(v, dict)])
    eng = results["engine"]
    md += ["", "## Engine"]
    md += _table(["measure", "value"], [
        ["validate_designer_graph calls/s (50-node design)",
         eng["validator"].get("calls_per_s", eng["validator"].get("error"))],
        [f"runner: {eng['runner'].get('steps')}-step run with fsync, ms",
         eng["runner"].get("run_with_fsync_ms", eng["runner"].get("error"))],
        ["runner: same run, state kept in memory, ms", eng["runner"].get("run_in_memory_ms")],
        ["runner: persistence overhead per step, ms", eng["runner"].get("overhead_per_step_ms")],
        ["disk floor, measured between those runs: write + fsync + rename + fsync dir of "
         "one state-sized file, ms", eng["runner"].get("disk_floor_per_write_ms")],
        ["runner: overhead per step above the disk floor, ms",
         eng["runner"].get("overhead_minus_disk_floor_ms")],
        ["resume: advance a parked 49-step run, ms",
         eng["resume"].get("advance_parked_ms", eng["resume"].get("error"))],
        ["resume: answer it to completion, ms", eng["resume"].get("answer_to_completion_ms")],
    ])
    md += ["", "## How cost grows (p50 ~ x^k, log-log least squares)"]
    md += _table(["server", "op", "against", "k", "r²", "points"],
                 [[g["server"], g["op"], g["against"], g["exponent"], g["r2"], g["points"]]
                  for g in results["growth"]])
    if meta.get("plot"):
        md += ["", f"![growth]({meta['plot']})"]
    if results.get("profiles"):
        md += ["", "## Profiles of missed targets"]
        for item in results["profiles"]:
            md.append(f"- {item['target']}: `{item['file']}` — hot: {item.get('hot', '')}")
    md.append("")
    return "\n".join(md)


# --- plot ----------------------------------------------------------------------------------


def plot(results: dict[str, Any], path: Path) -> str | None:
    """Log-log p50 against bytes and against nodes; returns the file name, None without mpl."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    rows = results["latency"]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8))
    for axis, prefix, key, label in ((axes[0], "size-", "bytes", "document bytes (50 nodes)"),
                                     (axes[1], "nodes-", "nodes", "nodes (short prompts)")):
        for index, server in enumerate(dict.fromkeys(r["server"] for r in rows)):
            color = f"C{index}"
            for op, style in ((PROMPT_CHANGE, "-o"), (ID_CHANGE, "--^"), ("change-break", "-.v"),
                              ("open", ":s")):
                series = sorted((r[key], r["p50_ms"]) for r in rows if r["server"] == server
                                and r["op"] == op and r["doc"].startswith(prefix)
                                and r["p50_ms"] is not None)
                if series:
                    axis.plot([x for x, _ in series], [y for _, y in series], style,
                              color=color, label=f"{server} {CHANGE_OPS.get(op, op)}")
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_xlabel(label)
        axis.set_ylabel("p50 latency to diagnostics, ms")
        axis.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=7)
    fig.suptitle("hwf-lsp vs floor (bare pygls) vs peer (vscode-json-languageserver)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path.name
