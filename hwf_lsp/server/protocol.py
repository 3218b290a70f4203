"""pygls's protocol with a text-sync that cannot be broken by the client.

pygls applies incremental edits by splitting on every character Python treats
as a line break (including U+2028 and form feeds, which LSP does not count) and
mishandles ranges past the end of the document.  This protocol applies edits
with the same line rules as `jsontext.positions`, clamps out-of-range positions
and never raises: a bad edit leaves a best-effort text, not a dead document.

It also answers every request, which pygls 2.1 does not: pygls structures a
message inside `json.loads`' object_hook, so a request whose params do not fit
the LSP types raises there and nobody replies.  Here the object hook keeps raw
dicts, and `handle_message` structures the whole message where a failure can
still be answered: -32602 for bad params, -32600 for a malformed message or a
request after `shutdown`, -32002 before `initialize`; a notification that does
not fit is logged and dropped.  A result that cannot be serialised becomes a
-32603 error instead of silence.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
from typing import Any
from urllib.parse import unquote

import cattrs
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.protocol.json_rpc import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
)

from hwf_lsp.jsontext.positions import LineIndex
from hwf_lsp.server.convert import encoding_name

log = logging.getLogger(__name__)

INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
SERVER_NOT_INITIALIZED = -32002
MAX_ERROR_DETAIL_CHARS = 500


def _valid_id(value: Any) -> bool:
    """JSON-RPC ids we can echo: strings and integers (not bools)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _describe_structuring_error(exc: BaseException) -> str:
    """What did not fit, as cattrs says it (`... @ $.position.line`), kept short."""
    cause = exc
    try:
        details = cattrs.transform_error(cause) if isinstance(
            cause, cattrs.BaseValidationError) else [str(cause) or type(cause).__name__]
    except Exception:  # noqa: BLE001 - describing the error must not be a second error
        details = [type(cause).__name__]
    text = "; ".join(details)
    return text if len(text) <= MAX_ERROR_DETAIL_CHARS else text[:MAX_ERROR_DETAIL_CHARS] + "..."


def apply_change(text: str, change: Any, encoding: str) -> str:
    """`text` after one TextDocumentContentChangeEvent (full or ranged), clamped."""
    new_text = getattr(change, "text", None)
    if not isinstance(new_text, str):
        return text
    rng = getattr(change, "range", None)
    if rng is None:
        return new_text
    lines = LineIndex(text)
    start = lines.offset(rng.start.line, rng.start.character, encoding)
    end = lines.offset(rng.end.line, rng.end.character, encoding)
    if end < start:
        start, end = end, start
    return text[:start] + new_text + text[end:]


class HwfProtocol(LanguageServerProtocol):
    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams):
        self._apply_did_change(params)
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None

    def _apply_did_change(self, params: types.DidChangeTextDocumentParams) -> None:
        key = unquote(params.text_document.uri)
        try:
            document = self.workspace.text_documents.get(key)
            if document is not None:
                encoding = encoding_name(self.workspace.position_encoding)
                text = document.source
                for change in params.content_changes or ():
                    text = apply_change(text, change, encoding)
                document._source = text  # pygls keeps no public setter
                document.version = params.text_document.version
        except Exception:  # a junk edit must not take the server down
            log.exception("could not apply a change")

    def _handle_cancel_notification(self, msg_id: Any) -> None:
        """`$/cancelRequest` for a request already answered is routine (clients cancel
        what they no longer need, often just after the answer left): a debug line, not
        pygls's warning (issue 47)."""
        if msg_id not in self._request_futures:
            log.debug("cancel of request %s, already answered", msg_id)
            return
        super()._handle_cancel_notification(msg_id)

    # --- lifecycle: initialize once, shutdown answered ----------------------------------

    @lsp_method(types.SHUTDOWN)
    def lsp_shutdown(self, *args: Any):
        """pygls's shutdown, fixed: its own id is taken before the user handler runs (after
        it, `msg_id` may be a later request's) and the other requests are cancelled from a
        copy (cancelling one runs callbacks that remove it: pygls answered -32603
        "dictionary changed size during iteration" when a run command was in flight)."""
        current_id = self.msg_id
        if (user_handler := self.fm.features.get(types.SHUTDOWN)) is not None:
            yield user_handler, args, None
        for msg_id, future in list(self._request_futures.items()):
            if msg_id != current_id and not future.done():
                future.cancel()
        self._shutdown = True
        return None

    # --- every request gets an answer ------------------------------------------------

    exit_code: int | None = None
    """Set by the `exit` notification: 0 after `shutdown`, else 1.  pygls swallows the
    SystemExit carrying it, so the program's main should return this."""

    def structure_message(self, data: dict[str, Any]) -> Any:
        """Keep raw dicts: structuring happens in `handle_message`, where it can be answered."""
        return data

    def handle_message(self, message: Any) -> None:
        if not isinstance(message, dict):
            if hasattr(message, "jsonrpc"):  # already structured by someone else
                super().handle_message(message)
            else:
                self._reply_error(None, INVALID_REQUEST, "a JSON-RPC message must be an object")
            return
        if self._malformed(message) or self._refused(message):
            return
        try:
            structured = self._structure(message)
        except Exception as exc:  # noqa: BLE001 - cattrs raises many kinds; all mean "bad shape"
            self._structuring_failed(message, "id" in message and "method" in message, exc)
            return
        super().handle_message(structured)

    def _malformed(self, message: dict[str, Any]) -> bool:
        """Whether `message` is not JSON-RPC 2.0 or names its method with no string; then it
        is answered (a request), fails our request (a response) or is dropped."""
        has_id, method = "id" in message, message.get("method")
        if message.get("jsonrpc") != self.VERSION:
            why = "not a JSON-RPC 2.0 message"
        elif "method" in message and not isinstance(method, str):
            why = "method must be a string"
        else:
            return False
        msg_id = message.get("id")
        if has_id and "method" in message:
            self._reply_error(msg_id if _valid_id(msg_id) else None, INVALID_REQUEST, why)
        elif has_id:  # a malformed response to one of our requests
            self._fail_request(msg_id, why)
        else:
            log.warning("dropping a malformed message: %s", why)
        return True

    def _refused(self, message: dict[str, Any]) -> bool:
        """Whether the session's state refuses `message` (see `_refusal`): a request is
        answered with the error, a notification before initialize dropped.  Notes `exit`."""
        method, msg_id = message.get("method"), message.get("id")
        if "id" not in message:
            if method == types.EXIT:
                self.exit_code = 0 if self._shutdown else 1  # LSP: 1 when exit comes unannounced
            elif method is not None and self._workspace is None and method != types.INITIALIZE:
                log.warning("dropping notification %r received before initialize", method)
                return True
            return False
        if "method" not in message:
            return False  # a response to one of our requests
        refusal = self._refusal(method, msg_id)
        if refusal is not None:
            self._reply_error(msg_id if _valid_id(msg_id) else None, *refusal)
        return refusal is not None

    def _refusal(self, method: str, msg_id: Any) -> tuple[int, str] | None:
        """(code, message) of why request `method` cannot be served now, else None."""
        if not _valid_id(msg_id):
            return INVALID_REQUEST, "request id must be a string or an integer"
        if self._shutdown:
            return INVALID_REQUEST, f"{method}: the server is shutting down (shutdown was requested)"
        if method == types.INITIALIZE and self._workspace is not None:
            # a second would forget open documents
            return INVALID_REQUEST, ("initialize: the server is already initialized (LSP allows "
                                     "one initialize per session)")
        if self._workspace is None and method not in (types.INITIALIZE, types.EXIT):
            return SERVER_NOT_INITIALIZED, f"{method}: the server is not initialized"
        if method not in self.fm.builtin_features and method not in self.fm.features:
            return METHOD_NOT_FOUND, f"Method Not Found: {method}"
        return None

    def _structure(self, data: dict[str, Any]) -> Any:
        """pygls's choice of type per message (without its traceback logging on failure)."""
        if "id" in data:
            if "error" in data:
                return self._converter.structure(data, types.ResponseErrorMessage)
            if "method" in data:
                kind = self.get_message_type(data["method"]) or JsonRPCRequestMessage
                return self._converter.structure(data, kind)
            kind = self._result_types.pop(data["id"], None) or JsonRPCResponseMessage
            return self._converter.structure(data, kind)
        kind = self.get_message_type(data.get("method", "")) or JsonRPCNotification
        return self._converter.structure(data, kind)

    def _structuring_failed(self, message: dict, is_request: bool, exc: Exception) -> None:
        detail = _describe_structuring_error(exc)
        method = message.get("method")
        if is_request:
            self._reply_error(message["id"], INVALID_PARAMS, f"invalid params for {method}: {detail}")
        elif method is not None:
            log.warning("dropping notification %r with invalid params: %s", method, detail)
        else:  # a response from the client to one of our requests, in the wrong shape
            self._fail_request(message.get("id"), detail)

    def _fail_request(self, msg_id: Any, why: str) -> None:
        """Our request `msg_id` got an unusable response: fail its future, never hang it."""
        log.warning("invalid response to request %r: %s", msg_id, why)
        if not _valid_id(msg_id):
            return
        future = self._request_futures.pop(msg_id, None)
        if future is not None and not future.done():
            future.set_exception(JsonRpcException(f"invalid response: {why}"))

    def _reply_error(self, msg_id: Any, code: int, message: str) -> None:
        log.warning("answering request %r with error %d: %s", msg_id, code, message)
        if msg_id is None:  # JSON-RPC wants `"id": null`, which the converter would drop
            self._send_data({"jsonrpc": self.VERSION, "id": None,
                             "error": {"code": code, "message": message}})
            return
        self._send_response(msg_id, error=types.ResponseError(code=code, message=message))

    def _send_data(self, data: Any) -> None:
        """pygls's `_send_data`, except that a response whose result cannot be serialised
        becomes a -32603 error response instead of no response at all."""
        if not data:
            return
        if self.writer is None:
            log.error("Unable to send data, no available transport!")
            return
        try:
            body = json.dumps(data, default=self._serialize_message)
        except Exception:
            log.exception("could not serialise an outgoing message")
            msg_id = getattr(data, "id", None)
            if not (hasattr(data, "result") or hasattr(data, "error")) or msg_id is None:
                return
            error = types.ResponseErrorMessage(id=msg_id, error=types.ResponseError(
                code=INTERNAL_ERROR, message="internal error: the result could not be serialised"))
            body = json.dumps(error, default=self._serialize_message)
        payload = body.encode(self.CHARSET)
        if self._include_headers:
            header = (
                f"Content-Length: {len(payload)}\r\n"
                f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n"
            )
            payload = header.encode(self.CHARSET) + payload
        try:
            res = self.writer.write(payload)
            if inspect.isawaitable(res):
                asyncio.ensure_future(res)
        except BrokenPipeError:
            log.exception("Error sending data. BrokenPipeError")
            raise
        except Exception as error:
            log.exception("Error sending data")
            self._server._report_server_error(error, JsonRpcException)

    # --- no future left behind (pygls 2.1.1 leak) ---------------------------------------

    @property
    def _request_futures(self) -> dict[Any, Any]:
        return self._futures

    @_request_futures.setter
    def _request_futures(self, value: dict[Any, Any]) -> None:
        self._futures = _FutureTable(value)

    def _execute_handler(self, msg_id: Any, handler: Any, callback: Any,
                         args: Any = None, kwargs: Any = None) -> None:
        """pygls's, except that a handler's future leaves `_request_futures` once done.

        pygls 2.1.1 files the future of every notification handler (and of every handler
        a generator handler yields to, e.g. didChange's) under a fresh uuid and never
        removes it: about 2 KiB per keystroke, forever.  Requests were already removed
        by `_send_handler_result`; the pop here is a no-op for them.  (pygls's tracker has
        no issue for this one as of 2026-12-01; its neighbours there are #607, progress
        tokens never removed, popped in `RunProgress.end`, and #608, result types of
        requests a client never answers.)"""

        def forget(future: Any) -> None:
            if self._request_futures.get(msg_id) is future:
                self._request_futures.pop(msg_id, None)
            callback(future)

        super()._execute_handler(msg_id, handler, forget, args, kwargs)


class _FutureTable(dict):
    """pygls's in-flight futures; `items()` is a snapshot, because pygls's shutdown walks
    them while done callbacks on worker threads remove entries (pygls issue #606)."""

    def items(self):
        return list(super().items())
