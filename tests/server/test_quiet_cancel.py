"""A `$/cancelRequest` for a request already answered is routine: no warning in the log
(issue 47); a cancel of a request still running still cancels it."""

from __future__ import annotations

import asyncio
import logging

from support.lsp import message

from hwf_lsp.server.server import build_server


class NullWriter:
    def write(self, data: bytes) -> None:
        pass

    def close(self) -> None:
        pass


def test_cancelling_an_answered_request_logs_no_warning(caplog) -> None:
    async def main() -> None:
        server = build_server()
        protocol = server.protocol
        protocol.set_writer(NullWriter())
        protocol.handle_message(message("initialize", {
            "processId": None, "rootUri": None, "capabilities": {}}, 1))
        await asyncio.sleep(0.05)
        with caplog.at_level(logging.DEBUG):
            protocol.handle_message(message("$/cancelRequest", {"id": 1}))
            protocol.handle_message(message("$/cancelRequest", {"id": 999}))
            await asyncio.sleep(0.01)
        future = asyncio.get_running_loop().create_future()
        protocol._request_futures[7] = future
        protocol.handle_message(message("$/cancelRequest", {"id": 7}))
        assert future.cancelled()

    asyncio.run(main())
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert warnings == []
    assert sum("already answered" in r.getMessage() for r in caplog.records) == 2
