"""The hwf language server: the state every feature shares, built in one place.

`HwfServer` owns the settings, the analyses per document, the runs index, the
diagnostics `Validator`, the `RunManager` of runs started from the editor and the
`RunsWatcher`; `build_server` registers every feature in FEATURES.
The runner itself (runner, seams, delivery) is imported on a thread once the client
is initialized, never before the `initialize` answer: start-up pays only for what
diagnostics, completion and hover need.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.io_ import StdoutWriter, run_async
from pygls.lsp.server import LanguageServer

from hwf_lsp import __version__
from hwf_lsp.server import guard
from hwf_lsp.server.convert import encoding_name
from hwf_lsp.server.design_reads import DesignReads
from hwf_lsp.server.design_test_documents import DesignSource, is_test_path
from hwf_lsp.server.documents import Analysis, analyse, is_design_uri, uri_to_path
from hwf_lsp.server.features import (
    call_hierarchy,
    canvas,
    code_actions,
    code_lens,
    commands,
    completion,
    definition,
    diagnostics,
    document_diagnostic,
    document_highlight,
    document_symbols,
    folding_range,
    formatting,
    hover,
    inlay_hints,
    references,
    rename,
    run_design_tests,
    selection_range,
    semantic_tokens,
    workspace_symbols,
)
from hwf_lsp.server.features.diagnostics import Validator, client_pulls
from hwf_lsp.server.framing import FramedReader
from hwf_lsp.server.guard import guarded
from hwf_lsp.server.protocol import HwfProtocol
from hwf_lsp.server.runs.manager import RunManager
from hwf_lsp.server.runs.newest_runs import NewestRunsByDesign
from hwf_lsp.server.runs.notify import on_runs_changed
from hwf_lsp.server.runs.watcher import RunsWatcher
from hwf_lsp.server.settings import SECTION, Settings

log = logging.getLogger("hwf_lsp.server")

FEATURES = (
    diagnostics, document_diagnostic, completion, hover, definition, references, rename,
    document_symbols, document_highlight, folding_range, selection_range, formatting,
    call_hierarchy, semantic_tokens, workspace_symbols, code_actions, inlay_hints, code_lens,
    commands, canvas, run_design_tests,
)
"""Every feature module (one per LSP method), in the order its handlers are registered."""

SERVER_NAME = "hwf-lsp"
SETTINGS_WAIT_S = 10.0
"""How long a command waits for the client's first answer to workspace/configuration."""
SERVER_VERSION = __version__

class HwfServer(LanguageServer):
    """pygls server plus what every feature needs: settings, designs, analyses, runs."""

    protocol: HwfProtocol

    def __init__(self) -> None:
        super().__init__(
            SERVER_NAME,
            SERVER_VERSION,
            protocol_cls=HwfProtocol,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
        )
        self.settings = Settings()
        self.client_info: types.ClientInfo | None = None
        """Who the client says it is (initialize): completion works around what a client's
        capabilities overstate (features/completion.py)."""
        self.analyses: dict[str, Analysis] = {}
        """Last analysis per document URI (unquoted), any version."""
        self.settings_pulled = asyncio.Event()
        """Set once the first workspace/configuration pull is answered (or cannot be):
        a command waits for it, so settings chosen while the server started count."""
        self.settings_listeners: list[Callable[[HwfServer, Settings], Any]] = []
        """Called after the settings change (e.g. to check every design again)."""
        self._runs: NewestRunsByDesign | None = None
        self.design_reads = DesignReads()
        """The designs test files name, as last read (read again when their file changes)."""
        self.validator = Validator(self)
        """Diagnostics of every open design, newest version only."""
        self.run_manager = RunManager(self)
        """Runs started from the editor, each on a thread of its own."""
        self.runs_watcher = RunsWatcher(
            self.run_manager.runs_root,
            lambda files: on_runs_changed(self, self.run_manager, files),
            prime=self._prime_runs,
            settle=lambda: on_runs_changed(self, self.run_manager, None))
        """Watches the runs directory (runs written by anyone); started once initialized."""

    def recheck_all(self, *, runs_changed: bool = False) -> None:
        """Recompute every open design's diagnostics (settings or runs changed)."""
        if runs_changed:
            self.validator.runs_changed()
            self.refresh_inlay_hints()
        else:
            self.validator.schedule_all()

    # --- runs written by anyone -------------------------------------------
    async def start_watching_runs(self) -> None:
        """After `initialized` (the watcher hands changes to this loop): start the watcher,
        which reads the run history on its own thread, then import the runner on another.
        The run-aware answers wait for the history only: the runner is for the first run
        command (which would import it anyway), and importing it first cost them ~0.1 s
        of CPU, 0.25 s on a loaded machine."""
        self.run_manager.loop = asyncio.get_running_loop()
        self.runs_watcher.start()
        await asyncio.to_thread(_import_runner)

    def _prime_runs(self) -> None:
        """First look at the run history (watcher thread), then tell the open designs.

        With the index current this is a query; after a cold start (no index) the files
        are stat'ed, the open designs get their newest runs, and the rest of the history
        is read in the background, after which the editor is told again."""
        from hwf_lsp.server.runs.notify import publish_runs_changed, runs_changed_params
        from hwf_lsp.workflow.run_index import Changes

        runs = self.runs
        manager = self.run_manager
        changes = runs.refresh()
        if runs.index.has_runs():
            manager.call_on_loop(lambda: self.recheck_all(runs_changed=True))
        if runs.index.unfinished():
            runs.build()
            changes = Changes(reset=True)
        if changes:
            manager.call_on_loop(publish_runs_changed, self, runs_changed_params(self, changes))

    def refresh_inlay_hints(self) -> None:
        """Ask the client to re-request inlay hints (run statuses changed), if it can."""
        caps = self.client_capabilities
        inlay = caps.workspace.inlay_hint if caps and caps.workspace else None
        self._ask_refresh(inlay, self.workspace_inlay_hint_refresh, "inlay hint")

    def refresh_pulled_diagnostics(self) -> None:
        """Ask a pulling client to pull again (run data changed), if it can be asked."""
        caps = self.client_capabilities
        diagnostics = caps.workspace.diagnostics if caps and caps.workspace else None
        self._ask_refresh(diagnostics, self.workspace_diagnostic_refresh, "diagnostic")

    @staticmethod
    def _ask_refresh(capability: Any, send: Callable[[None], Any], what: str) -> None:
        if capability is not None and capability.refresh_support:
            try:
                send(None)
            except Exception:
                log.exception("%s refresh failed", what)

    def start_io(self, stdin: Any = None, stdout: Any = None) -> None:
        """pygls's async stdio loop, with a reader that survives malformed frames
        (server/framing.py)."""
        log.info("Starting async IO server")
        self._stop_event = threading.Event()
        reader = FramedReader(stdin or sys.stdin.buffer, self.thread_pool)
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            asyncio.run(run_async(stop_event=self._stop_event, reader=reader,
                                  protocol=self.protocol, logger=log,
                                  error_handler=self.report_server_error))
        except BrokenPipeError:
            log.error("Connection to the client is lost! Shutting down the server.")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    # --- negotiated facts ------------------------------------------------
    @property
    def encoding(self) -> str:
        try:
            return encoding_name(self.workspace.position_encoding)
        except RuntimeError:  # not initialized yet
            return "utf-16"

    def design_source(self) -> DesignSource:
        """Where a test file's design is found now: the settings' Hermes home, the
        workspace folders (the project outside a repository), the designs as last read."""
        roots = tuple(Path(path) for path in map(uri_to_path, self.folder_uris()) if path)
        return DesignSource(self.settings.home(), roots, self.design_reads.read)

    def folder_uris(self) -> tuple[str, ...]:
        try:
            workspace = self.workspace
        except RuntimeError:
            return ()
        uris = [folder.uri for folder in workspace.folders.values()]
        if workspace.root_uri:
            uris.append(workspace.root_uri)
        return tuple(uris)

    # --- designs ---------------------------------------------------------
    def is_design(self, uri: str) -> bool:
        """A design under the globs; a design test file never is, whatever the globs."""
        key = unquote(uri)
        return not is_test_path(uri_to_path(key)) and is_design_uri(
            key, self.settings.design_globs, self.folder_uris())

    def is_test_file(self, uri: str) -> bool:
        """A design test file (`*.hwf-test.json`, contract 7)."""
        return is_test_path(uri_to_path(unquote(uri)))

    def is_checked(self, uri: str) -> bool:
        """Whether the server checks the document: a design or a design test file."""
        return self.is_test_file(uri) or self.is_design(uri)

    @property
    def runs(self) -> NewestRunsByDesign:
        home = self.settings.home()
        runs = self._runs
        if runs is None or runs.home != home:
            # fed: the loop reads snapshots only; the runs watcher's thread, finished
            # commands and the diagnostics workers refresh it (server/runs/newest_runs.py)
            runs = self._runs = NewestRunsByDesign(home, auto_refresh=False)
        return runs

    def open_text(self, uri: str) -> tuple[int | None, str] | None:
        """(version, text) of an open document, or None when it is not open."""
        try:
            document = self.workspace.text_documents.get(unquote(uri))
        except RuntimeError:
            return None
        if document is None:
            return None
        return document.version, document.source

    def analysis(self, uri: str) -> Analysis | None:
        """The analysis of the open design's current text (computed now if stale)."""
        return self._analysis(uri) if self.is_design(uri) else None

    def test_analysis(self, uri: str) -> Analysis | None:
        """The analysis of the open design test file's current text."""
        return self._analysis(uri) if self.is_test_file(uri) else None

    def _analysis(self, uri: str) -> Analysis | None:
        current = self.open_text(uri)
        if current is None:
            return None
        version, text = current
        key = unquote(uri)
        cached = self.analyses.get(key)
        if cached is not None and cached.version == version and not cached.stale and (
            cached.text is text or cached.text == text
        ):
            return cached
        result = analyse(key, version, text, self.runs, check=False, source=self.design_source)
        self.remember(result)
        return result

    def remember(self, result: Analysis) -> None:
        key = unquote(result.uri)
        cached = self.analyses.get(key)
        if cached is None or cached.version is None or result.version is None or (
            result.version >= cached.version
        ):
            self.analyses[key] = result

    def forget(self, uri: str) -> None:
        self.analyses.pop(unquote(uri), None)

    # --- settings --------------------------------------------------------
    def apply_settings(self, raw: Any) -> None:
        before = self.settings
        self.settings = before.merged(raw)
        if self.settings != before:
            log.info("settings: %s", self.settings)
            for listener in list(self.settings_listeners):
                try:
                    listener(self, before)
                except Exception:
                    log.exception("settings listener failed")

    async def settings_known(self, timeout: float = SETTINGS_WAIT_S) -> None:
        """Wait until the first configuration pull is answered (at most `timeout`: a
        client that never answers keeps the settings it gave at initialize)."""
        if self.settings_pulled.is_set():
            return
        try:
            await asyncio.wait_for(self.settings_pulled.wait(), timeout)
        except TimeoutError:
            log.warning("workspace/configuration not answered within %.0f s: going on with "
                        "the settings given at initialize", timeout)
            self.settings_pulled.set()

    async def pull_configuration(self) -> None:
        """Ask the client for section `hwf` when it can answer workspace/configuration."""
        caps = self.client_capabilities
        if not (caps.workspace and caps.workspace.configuration):
            return
        try:
            result = await self.workspace_configuration_async(
                types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])
            )
        except asyncio.CancelledError:
            # the connection closed before the client answered: pygls cancels the
            # request and the handler's task. Ending the handler here (it has nothing
            # left to do) keeps pygls from printing the cancellation as a traceback.
            log.info("workspace/configuration was not answered: the connection closed")
            return
        except Exception:  # a client that fails here keeps the defaults
            log.exception("workspace/configuration failed")
            return
        if result:
            self.apply_settings(result[0])


def _register_lifecycle(server: HwfServer) -> None:
    @server.feature(types.INITIALIZE)
    @guarded()
    def initialize(params: types.InitializeParams) -> None:
        server.validator.pull = client_pulls(params.capabilities)
        server.client_info = params.client_info
        options = params.initialization_options
        if options is not None:
            server.apply_settings(options)

    @server.feature(types.INITIALIZED)
    @guarded()
    async def initialized(params: types.InitializedParams) -> None:
        try:
            await server.start_watching_runs()
            await server.pull_configuration()
        finally:  # a command waits for this (settings_known), answered or not
            server.settings_pulled.set()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    @guarded()
    async def did_change_configuration(params: types.DidChangeConfigurationParams) -> None:
        if params.settings is not None:
            server.apply_settings(params.settings)
        await server.pull_configuration()


def build_server() -> HwfServer:
    server = HwfServer()

    def report(message: str) -> None:
        server.window_log_message(types.LogMessageParams(type=types.MessageType.Error,
                                                         message=message))

    guard.on_error = report
    guard.quiet_refusals()
    _register_lifecycle(server)
    for feature in FEATURES:
        feature.register(server)
    return server


def _import_runner() -> None:
    """What the first run command needs and start-up does not: the runner, its seams and
    delivery (runs/manager.py imports them on first use)."""
    import hwf_lsp.workflow.rerun
    import hwf_lsp.workflow.runner  # noqa: F401
