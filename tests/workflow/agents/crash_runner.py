"""Runs a 5-step design and kills itself with SIGKILL at the N-th `LABEL` checkpoint.

`crash_runner.py HOME start LABEL N` creates and advances a run (printing its id first);
`crash_runner.py HOME RUN_ID` resumes it and prints the outputs as JSON.
"""

import json
import os
import signal
import sys
from pathlib import Path

from hwf_lsp.workflow.delivery import Delivery
from hwf_lsp.workflow.runner import Runner
from hwf_lsp.workflow.seams import CallableAgentSeam
from hwf_lsp.workflow.stores import RunStore

home = Path(sys.argv[1])
runs = RunStore.at_home(home)
seen = {"n": 0}


def checkpoint(label: str) -> None:
    if len(sys.argv) > 4 and label == sys.argv[3]:
        seen["n"] += 1
        if seen["n"] == int(sys.argv[4]):
            os.kill(os.getpid(), signal.SIGKILL)


def answer(request):
    return {"structured": {"node": request.correlation_id.rsplit(":", 1)[1],
                           "context": json.loads(request.context)}}


channel = [sys.executable, str(Path(__file__).with_name("channel.py")), str(home / "sink.jsonl")]
runner = Runner(runs, agent=CallableAgentSeam(answer), delivery=Delivery(None, channel),
                checkpoint=checkpoint)
nodes, previous = [{"id": "t", "type": "trigger"}], "t"
for i in range(5):
    node = {"id": f"s{i}", "after": [previous]}
    if i % 2:
        node.update(type="output", deliver="channel", target="test:sink")
    else:
        node.update(type="agent", prompt="go")
    nodes.append(node)
    previous = node["id"]

if sys.argv[2] == "start":
    run_id = runner.create({"name": "crash", "nodes": nodes})["run_id"]
    print(run_id, flush=True)
    runner.advance(run_id)
else:
    print(json.dumps(runner.advance(sys.argv[2])["outputs"], sort_keys=True))
