"""A TCP fault proxy for the tests (asyncio, in a thread of the test process): one listening port per broker,
forwarding to the broker's proxied listener, which the brokers advertise at the proxy's port (Sandbox.up(proxied=
True)), so that every connection a client makes goes through it. Faults, set per broker at any moment and applied
to the connections already open as to new ones:

- latency: each chunk waits this long before it is forwarded (both ways);
- drop after N bytes: once the broker has sent N bytes on a connection, both sides are closed (FIN);
- reset after N bytes: the same, with a TCP reset to the client;
- blackhole: nothing is forwarded either way, the connections stay open (a broker behind a dead link).
"""

from __future__ import annotations

import asyncio
import socket
import struct
import threading
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Fault:
    name: str
    latency_s: float = 0.0
    drop_after: int | None = None  # bytes from the broker, then FIN
    reset_after: int | None = None  # bytes from the broker, then RST
    blackhole: bool = False


PASS = Fault("pass")


def latency(seconds: float) -> Fault:
    return Fault(f"latency {seconds * 1000:.0f} ms", latency_s=seconds)


def drop_after(n: int) -> Fault:
    return Fault(f"drop after {n} bytes", drop_after=n)


def reset_after(n: int) -> Fault:
    return Fault(f"reset after {n} bytes", reset_after=n)


BLACKHOLE = Fault("blackhole", blackhole=True)


class FaultProxy:
    """routes: listening port -> the port it forwards to (both on 127.0.0.1)."""

    def __init__(self, routes: dict[int, int]) -> None:
        self.routes = dict(routes)
        self.faults: dict[int, Fault] = {port: PASS for port in routes}
        self.connections = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True, name="fault-proxy")
        self._servers: list[asyncio.base_events.Server] = []
        self._writers: set[asyncio.StreamWriter] = set()

    def start(self) -> FaultProxy:
        self._thread.start()
        for listen, target in self.routes.items():
            self._call(self._serve(listen, target))
        return self

    def set(self, fault: Fault, ports: Iterable[int] | None = None) -> None:
        """Apply `fault` to these listening ports (all by default), to open connections as to new ones."""
        for port in self.routes if ports is None else ports:
            self.faults[port] = fault

    def clear(self) -> None:
        self.set(PASS)

    def stop(self) -> None:
        self._call(self._close())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def _call(self, coro) -> None:
        asyncio.run_coroutine_threadsafe(coro, self._loop).result(10)

    async def _serve(self, listen: int, target: int) -> None:
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.connections += 1
            try:
                up_reader, up_writer = await asyncio.open_connection("127.0.0.1", target)
            except OSError:
                writer.close()
                return
            self._writers |= {writer, up_writer}
            sent = [0]  # bytes from the broker on this connection
            done = asyncio.Event()
            tasks = [asyncio.create_task(self._pump(listen, reader, up_writer, None, done, writer)),
                     asyncio.create_task(self._pump(listen, up_reader, writer, sent, done, writer))]
            await done.wait()
            for t in tasks:
                t.cancel()
            for w in (writer, up_writer):
                w.close()
                self._writers.discard(w)

        self._servers.append(await asyncio.start_server(handle, "127.0.0.1", listen, reuse_address=True))

    async def _pump(self, port: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                    sent: list[int] | None, done: asyncio.Event, client: asyncio.StreamWriter) -> None:
        try:
            while True:
                chunk = await reader.read(65536)
                if not chunk:
                    break
                fault = self.faults[port]
                if fault.blackhole:
                    continue
                if fault.latency_s:
                    await asyncio.sleep(fault.latency_s)
                limit = fault.drop_after if fault.drop_after is not None else fault.reset_after
                if sent is not None and limit is not None and sent[0] + len(chunk) > limit:
                    writer.write(chunk[:max(0, limit - sent[0])])
                    await writer.drain()
                    if fault.reset_after is not None:
                        sock = client.get_extra_info("socket")
                        if sock is not None:
                            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                        client.transport.abort()
                    break
                if sent is not None:
                    sent[0] += len(chunk)
                writer.write(chunk)
                await writer.drain()
        except (OSError, asyncio.IncompleteReadError):
            pass
        finally:
            done.set()

    async def _close(self) -> None:
        for s in self._servers:
            s.close()
        for w in list(self._writers):
            w.close()
