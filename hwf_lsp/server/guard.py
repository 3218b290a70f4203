"""Every handler catches its own exceptions: junk in, empty answer out, a log line.

pygls turns an exception in a request handler into an error response, and in a
notification handler into a showMessage; neither helps a person typing.  A
handler wrapped here logs the traceback and answers `default` instead; a
JsonRpcException is a deliberate error answer and passes through.

`RequestRefused` is the error answer for a request we decline on purpose (a
rename to an invalid id, a run command that cannot be done): pygls logs every
JsonRpcException with a traceback, which is noise on stderr for an ordinary
refusal; `quiet_refusals()` keeps those records out of pygls's log.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from pygls.exceptions import JsonRpcException

log = logging.getLogger("hwf_lsp.server")

F = TypeVar("F", bound=Callable[..., Any])

PYGLS_LOGGERS = ("pygls.protocol.json_rpc", "pygls.server")


class RequestRefused(JsonRpcException):
    """A deliberate error answer: sent to the client, never logged with a traceback."""


def is_refusal(record: logging.LogRecord) -> bool:
    exc = record.exc_info[1] if record.exc_info else None
    if isinstance(exc, RequestRefused):
        return True
    return any(isinstance(arg, RequestRefused) for arg in record.args or ()) \
        if isinstance(record.args, tuple) else False


def _drop_refusals(record: logging.LogRecord) -> bool:
    return not is_refusal(record)


def quiet_refusals() -> None:
    """Keep pygls from logging RequestRefused (idempotent)."""
    for name in PYGLS_LOGGERS:
        logger = logging.getLogger(name)
        if _drop_refusals not in logger.filters:
            logger.addFilter(_drop_refusals)


on_error: Callable[[str], Any] | None = None
"""Set by the server: tells the client (window/logMessage) that a handler failed."""


def _report(fn: Callable[..., Any]) -> None:
    log.exception("%s failed", fn.__qualname__)
    if on_error is not None:
        try:
            on_error(f"hwf-lsp: {fn.__qualname__} failed (see the server log)")
        except Exception:
            log.exception("could not report a handler failure")


def guarded(default: Any = None) -> Callable[[F], F]:
    def decorate(fn: F) -> F:
        if asyncio.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def run_async(*args: Any, **kwargs: Any) -> Any:
                try:
                    return await fn(*args, **kwargs)
                except (asyncio.CancelledError, JsonRpcException):
                    raise
                except Exception:  # noqa: BLE001
                    _report(fn)
                    return default() if callable(default) else default

            return run_async  # type: ignore[return-value]

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except JsonRpcException:
                raise  # a deliberate error answer (e.g. a refused rename)
            except Exception:  # noqa: BLE001
                _report(fn)
                return default() if callable(default) else default

        return run  # type: ignore[return-value]

    return decorate
