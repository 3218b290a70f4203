"""The Hermes Agent plugin `visual-workflow`: the hwf-lsp engine inside Hermes (contract 6).

Hermes finds it through the entry point `visual-workflow = hwf_lsp.hermes` in the
group `hermes_agent.plugins` (hwf-lsp installed from a checkout or wheel into Hermes'
environment), or as the directory `$HERMES_HOME/plugins/visual-workflow/` that
`hwf hermes install` writes. Either way it is off until `plugins.enabled` names it,
and its config key is `plugins.entries.visual-workflow`.

`register(ctx)` adds the chat tools (toolsets `visual_workflow` and, for the three a cron
job needs, `visual_workflow_agent_steps`), the `/workflow`
slash command and the `hermes workflow` CLI. Runs are the files `hwf` and the
editor use, under the home Hermes resolves. This package imports the engine
(`hwf_lsp.workflow`) and never the language server; Hermes modules are imported
only inside functions that Hermes itself calls, so `hwf hermes install` works
without Hermes installed.
"""

from __future__ import annotations

from typing import Any

from hwf_lsp.hermes.home import current_home
from hwf_lsp.rules.model_gate import PLUGIN_NAME

TOOLSET = "visual_workflow"
SLASH_HINT = "list | run NAME | answer RUN CHOICE | status RUN"

__all__ = ["PLUGIN_NAME", "TOOLSET", "current_home", "register"]


def register(ctx: Any) -> None:
    """Hermes' plugin hook: tools, `/workflow` and `hermes workflow`."""
    from hwf_lsp.hermes import slash, tools, workflow_command
    from hwf_lsp.hermes.host_seams import chat_seam, llm_seam

    def handler_for(fn: Any) -> Any:
        def handle(args: Any, **_context: Any) -> str:
            return tools.call_tool(fn, args, current_home(), chat_seam(ctx))

        return handle

    for schema, fn in tools.TOOLS:
        ctx.register_tool(name=schema["name"], toolset=tools.toolset_of(schema["name"]),
                          schema=schema,
                          handler=handler_for(fn), description=schema["description"])
    ctx.register_command(
        "workflow", lambda raw_args="": slash.run_slash(raw_args, current_home(),
                                                        lambda: llm_seam(ctx)),
        description="Hermes Workflow: list designs and runs, run a design, answer, respond",
        args_hint=SLASH_HINT)
    ctx.register_cli_command(
        "workflow", help="Hermes Workflow designs and runs (the hwf command, in Hermes)",
        setup_fn=workflow_command.setup_hermes_workflow,
        handler_fn=lambda args: workflow_command.run_hermes_workflow(args, ctx.llm),
        description="Mirrors `hwf`: check, run, resume, answer, respond, runs, show, cancel, "
        "on the runs of this Hermes home.")
