"""Every handler catches its own exceptions: junk in, empty answer out, a log line.

pygls turns an exception in a request handler into an error response, and in a
notification handler into a showMessage; neither helps a person typing.  A
handler wrapped here logs the traceback and answers `default` instead; a
JsonRpcException is a deliberate error answer and passes through.
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

on_error: Callable[[str], Any] | None = None
"""Set by the server: tells the client (window/logMessage) that a handler failed."""


def _report(fn: Callable[..., Any]) -> None:
    log.exception("%s failed", fn.__qualname__)
    if on_error is not None:
        try:
            on_error(f"hwf-lsp: {fn.__qualname__} failed (see the server log)")
        except Exception:  # noqa: BLE001
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
