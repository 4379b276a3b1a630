"""The WebSocket fast lane on a real uvicorn server (``LaneProtocol``) and a real client:
a frame written through the lane arrives as the text it framed, in order with what the
application sends through ASGI; a message the lane claims never reaches the application
and the others do; the lane refuses to write once the socket's buffer is full (a client
that does not read) and once the connection is closing."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn
import websockets
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from referee.web.fast_lane import Lane, LaneProtocol, lane_of, text_frame

seen: dict[str, Any] = {}
"""What the application observed, by test."""


async def echo(websocket: WebSocket) -> None:
    """Claims ``claim`` through the lane, echoes the rest through ASGI; ``lane`` writes
    the next message's text back through the lane."""
    await websocket.accept()
    lane = lane_of(websocket.scope)
    assert isinstance(lane, Lane)
    claimed: list[bytes] = []
    lane.take = lambda data: data == b"claim" and (claimed.append(data) or True)
    seen["claimed"] = claimed
    received: list[str] = seen.setdefault("received", [])
    try:
        while True:
            text = await websocket.receive_text()
            received.append(text)
            if text.startswith("lane "):
                assert lane.write(text_frame(text[5:]))
                await websocket.send_text("asgi after")
            elif text == "flood":  # the client reads nothing from here on
                frame = text_frame("x" * 1_000_000)
                writes = 0
                while lane.write(frame) and writes < 1000:
                    writes += 1
                seen["writes"] = writes
                seen["open_when_full"] = lane.open()
            elif text == "close":
                await websocket.close(1000, "bye")
                seen["after_close"] = lane.write(text_frame("late"))
                return
            else:
                await websocket.send_text(f"echo {text}")
    except WebSocketDisconnect:
        return


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = Starlette(routes=[WebSocketRoute("/ws", echo)])
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           ws=LaneProtocol, ws_per_message_deflate=False,
                                           log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive()
        time.sleep(0.02)
    yield f"ws://127.0.0.1:{port}/ws"
    server.should_exit = True
    thread.join(10)


def test_a_frame_through_the_lane_arrives_in_order_and_claimed_messages_stay_out(
        url: str) -> None:
    async def talk() -> list[str]:
        got = []
        async with websockets.connect(url) as ws:
            for text in ("one", "claim", "two", "lane hello é", "claim", "three"):
                await ws.send(text)
                if text != "claim":
                    got.append(await asyncio.wait_for(ws.recv(), 10))
                    if text.startswith("lane "):
                        got.append(await asyncio.wait_for(ws.recv(), 10))
        return got

    seen.clear()
    got = asyncio.run(talk())
    assert got == ["echo one", "echo two", "hello é", "asgi after", "echo three"]
    assert seen["received"] == ["one", "two", "lane hello é", "three"]
    assert seen["claimed"] == [b"claim", b"claim"]


def test_the_lane_closes_when_the_socket_is_full_or_closing(url: str) -> None:
    async def flood() -> None:
        async with websockets.connect(url, max_size=None) as ws:
            await ws.send("flood")
            deadline = time.monotonic() + 10
            while "open_when_full" not in seen:  # (nothing read meanwhile)
                assert time.monotonic() < deadline
                await asyncio.sleep(0.05)

    async def close() -> str:
        async with websockets.connect(url) as ws:
            await ws.send("close")
            with contextlib.suppress(websockets.ConnectionClosed):
                await asyncio.wait_for(ws.recv(), 10)
            return str(ws.close_reason)

    seen.clear()
    asyncio.run(flood())
    assert seen["open_when_full"] is False
    assert 1 <= seen["writes"] < 1000  # (stopped by the buffer, not by the count)
    seen.clear()
    assert asyncio.run(close()) == "bye"
    assert seen["after_close"] is False
