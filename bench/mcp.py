"""What the toolhooks MCP proxy adds to a tools/call, against the same call straight to the upstream.

``python bench/mcp.py [--quick] [--rounds N] [--calls N] [--durability D] [--pins] [--large MB]
[--json FILE]``

The upstream is one small MCP server (the SDK's low-level ``Server``) with item 2's ``read`` tool:
``read(path)`` returns about 200 characters. The proxy runs item 2's default pipeline (the policy,
with the "full" profile here since profiles name tools, loop detection, result budget, the JSONL
event log). The log keeps its default durability, "interval", as ``toolhooks mcp serve`` does: the
handler only queues each event, and the log's writer thread encodes, chains and writes them, which
the thread CPU clock below does not count. ``--durability call`` makes the handler write each
call's lines itself before it answers (one ``os.write`` a call), so "the pipeline" includes them. Two
setups, each a pair of contenders measured in the same process, interleaved round by round, on
the wall clock (the stdio setups spend most of their time in other processes):

- in-process: the SDK's ``Client`` connected to the upstream ``Server`` object (handshake era,
  the SDK's in-memory streams), against the same ``Client`` connected to the proxy's ``Server``,
  whose upstream is that same ``Server`` object, in-process too;
- over stdio: ``Client`` starting the upstream as a subprocess, against ``Client`` starting
  ``toolhooks mcp serve`` as a subprocess, which starts the same upstream as its subprocess.

"Added" is the proxy's time less the direct time: the second hop plus the pipeline. The target
is that it costs at most 1.2 times what the upstream hop itself costs (the direct time).

Inside the proxy (issue #22: the pipeline <= 50 µs per call): a third in-process run times each
tools/call inside the proxy's handler on the thread CPU clock (client, proxy and upstream share
the one thread, so waiting for a core on a loaded machine is not counted, and neither is the
event log's writer thread).

``--pins`` runs the in-process setups with the upstream's tool definitions pinned in a
``toolhooks.lock`` next to a config file (issue #43: pins are checked when an upstream lists its
tools, not per call). Over HTTP (issue #43): the proxy served by uvicorn in this process, the
SDK's streamable HTTP client in front, each call carrying a bearer token: a ``[[mcp.auth.tokens]]``
entry against an OAuth 2.1 JWT (RS256, checked against a JWKS file once, then remembered until
it expires), interleaved on one proxy. Per call: the pipeline is the time in ``rt.acall`` less the executor
it runs, plus ``rt.is_visible``; the upstream hop is the time in the SDK client's ``call_tool``
(the in-process client and the upstream server run inside it); the proxy's own work is the rest
of the handler (who is calling, the route, the ``ToolCall``, reading the upstream's result into
the pipeline and the ``CallToolResult`` built back). Medians over every call of the run.

``--large MB`` (issue #44): one tools/call whose result is MB megabytes of text, from an upstream
started over stdio, read four ways interleaved round by round: the SDK's ``Client`` with its own
``stdio_client`` and with the proxy's transport (``toolhooks_mcp._stdio``), and through the proxy
(in-process, the default pipeline, whose result budget trims the text) with the SDK's
``stdio_client`` put back in place of its transport (the proxy before issue #44) and as it is.
Wall clock and this process's CPU time per call (the upstream's own CPU is not counted).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE] + [HERE]

import anyio  # noqa: E402
import mcp_types as types  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.server import Server  # noqa: E402
from pipeline import BODY, PATHS, config  # noqa: E402
from toolhooks_mcp import Proxy  # noqa: E402
from toolhooks_mcp._stdio import StdioTransport  # noqa: E402

TARGET = 1.2
PIPELINE_TARGET = 50e-6
READ = types.Tool(
    name="read",
    description="Read a file.",
    input_schema={
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "required": ["path"],
    },
    annotations=types.ToolAnnotations(read_only_hint=True),
)


def upstream() -> Server[Any]:
    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[READ])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        path = (params.arguments or {}).get("path", "")
        return types.CallToolResult(content=[types.TextContent(text=f"# {path}\n{BODY}")])

    return Server("bench-upstream", on_list_tools=list_tools, on_call_tool=call_tool)


BIG = types.Tool(
    name="big",
    description="A long text.",
    input_schema={"type": "object", "properties": {"size": {"type": "integer"}}},
    annotations=types.ToolAnnotations(read_only_hint=True),
)


def large_upstream() -> Server[Any]:
    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[BIG])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        size = int((params.arguments or {}).get("size", 0))
        return types.CallToolResult(content=[types.TextContent(text="x" * size)])

    return Server("bench-large-upstream", on_list_tools=list_tools, on_call_tool=call_tool)


def proxy_config(
    log_dir: str, command: list[str] | None, durability: str = "interval"
) -> dict[str, Any]:
    cfg = config(log_dir, durability)
    # Profiles list tool names (read, write, exec): the prefixed MCP names are none of them, so
    # "coding" would hide every proxied tool. The policy runs with its default, "full".
    cfg.pop("tools", None)
    server = (
        {"command": command[0], "args": command[1:]} if command else {"command": "(in-process)"}
    )
    cfg["mcp"] = {"servers": {"files": {**server, "trusted": True}}, "sender": "bench"}
    return cfg


Call = Callable[[], Awaitable[object]]


def caller(client: Client, name: str) -> Call:
    serial = iter(range(1 << 62))

    async def call() -> object:
        result = await client.call_tool(name, {"path": f"src/module_{next(serial) % PATHS}.py"})
        assert not result.is_error, result.content
        return result

    return call


async def measure(contenders: dict[str, Call], rounds: int, calls: int) -> dict[str, list[float]]:
    """Per-call seconds of ``calls`` back-to-back calls, ``rounds`` times, interleaved."""
    samples: dict[str, list[float]] = {label: [] for label in contenders}
    labels = list(contenders)
    for index in range(rounds + 1):  # round 0 warms up
        shift = index % len(labels)
        for label in labels[shift:] + labels[:shift]:
            call = contenders[label]
            start = time.perf_counter()
            for _ in range(calls):
                await call()
            if index:
                samples[label].append((time.perf_counter() - start) / calls)
    return samples


def configured(log_dir: str, durability: str, pins: bool) -> Any:
    """The proxy's config: the dict, or with ``pins`` a file whose lock pins the upstream."""
    cfg = proxy_config(log_dir, None, durability)
    if not pins:
        return cfg
    from toolhooks import load_config
    from toolhooks.kit import write_lock_table
    from toolhooks_mcp._pins import render

    path = os.path.join(log_dir, "toolhooks.toml")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(_toml(cfg))
    write_lock_table(load_config(path), "mcp", render({"files": {"read": READ}}))
    return path


async def in_process(
    log_dir: str, rounds: int, calls: int, durability: str, pins: bool = False
) -> dict[str, list[float]]:
    server = upstream()
    proxy = Proxy(configured(log_dir, durability, pins), local={"files": server})
    async with AsyncExitStack() as stack:
        direct = await stack.enter_async_context(Client(server, mode="legacy", cache=None))
        await stack.enter_async_context(proxy.running())
        through = await stack.enter_async_context(Client(proxy.server, mode="legacy", cache=None))
        return await measure(
            {"direct": caller(direct, "read"), "proxy": caller(through, "files__read")},
            rounds,
            calls,
        )


class TimedProxy(Proxy):
    """The proxy, timing each tools/call inside its handler (thread CPU clock): the pipeline,
    the upstream hop and the proxy's own work, apart."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.samples: dict[str, list[float]] = {"pipeline": [], "proxy": [], "upstream": []}
        self._now = {"acall": 0.0, "execute": 0.0, "upstream": 0.0, "visible": 0.0}
        runtime, now, clock = self.runtime, self._now, time.thread_time
        acall, is_visible = runtime.acall, runtime.is_visible

        async def timed_acall(call: Any, execute: Any = None) -> Any:
            async def timed_execute(params: Any) -> Any:
                start = clock()
                try:
                    return await execute(params)
                finally:
                    now["execute"] += clock() - start

            start = clock()
            try:
                return await acall(call, timed_execute)
            finally:
                now["acall"] += clock() - start

        def timed_visible(*args: Any, **kwargs: Any) -> bool:
            start = clock()
            try:
                return is_visible(*args, **kwargs)
            finally:
                now["visible"] += clock() - start

        runtime.acall, runtime.is_visible = timed_acall, timed_visible  # type: ignore[method-assign]

    def time_upstreams(self) -> None:
        """Time each connected upstream's SDK client (the proxy's own timeout around it is the
        proxy's work)."""
        for upstream in self.upstreams.values():
            client = upstream.client
            assert client is not None, upstream.down_reason()
            client.call_tool = self._timed_client(client.call_tool)  # type: ignore[method-assign]

    def _timed_client(self, call_tool: Any) -> Any:
        now, clock = self._now, time.thread_time

        async def timed(*args: Any, **kwargs: Any) -> Any:
            start = clock()
            try:
                return await call_tool(*args, **kwargs)
            finally:
                now["upstream"] += clock() - start

        return timed

    async def _call_tool(self, ctx: Any, params: Any) -> Any:
        now = self._now
        for key in now:
            now[key] = 0.0
        start = time.thread_time()
        try:
            return await super()._call_tool(ctx, params)
        finally:
            handler = time.thread_time() - start
            pipeline = now["acall"] - now["execute"] + now["visible"]
            self.samples["pipeline"].append(pipeline)
            self.samples["upstream"].append(now["upstream"])
            self.samples["proxy"].append(handler - now["upstream"] - pipeline)


async def inside_proxy(
    log_dir: str, rounds: int, calls: int, durability: str, pins: bool = False
) -> dict[str, float]:
    """Per-call medians of the pipeline, the upstream hop and the proxy's own work."""
    server = upstream()
    proxy = TimedProxy(configured(log_dir, durability, pins), local={"files": server})
    async with AsyncExitStack() as stack:
        await stack.enter_async_context(proxy.running())
        proxy.time_upstreams()
        through = await stack.enter_async_context(Client(proxy.server, mode="legacy", cache=None))
        call = caller(through, "files__read")
        for _ in range(calls):  # warm-up, not counted
            await call()
        for samples in proxy.samples.values():
            samples.clear()
        for _ in range(rounds * calls):
            await call()
    return {key: statistics.median(values) for key, values in proxy.samples.items()}


async def over_stdio(
    log_dir: str, rounds: int, calls: int, durability: str
) -> dict[str, list[float]]:
    command = [sys.executable, os.path.abspath(__file__), "--serve-upstream"]
    cfg_path = os.path.join(log_dir, "toolhooks.toml")
    with open(cfg_path, "w", encoding="utf-8") as handle:
        handle.write(_toml(proxy_config(log_dir, command, durability)))
    serve = [sys.executable, "-m", "toolhooks", "mcp", "serve", "--config", cfg_path]
    async with AsyncExitStack() as stack:
        direct = await stack.enter_async_context(
            Client(StdioServerParameters(command=command[0], args=command[1:]), cache=None)
        )
        through = await stack.enter_async_context(
            Client(StdioServerParameters(command=serve[0], args=serve[1:]), cache=None)
        )
        return await measure(
            {"direct": caller(direct, "read"), "proxy": caller(through, "files__read")},
            rounds,
            calls,
        )


async def over_http(
    log_dir: str, rounds: int, calls: int, durability: str
) -> dict[str, list[float]]:
    """A configured token against an OAuth JWT, through one proxy served over HTTP."""
    import socket
    import time as clock

    import jwt
    from cryptography.hazmat.primitives.asymmetric import rsa
    from toolhooks_mcp._http import serve_http
    from toolhooks_mcp._upstream import http_transport

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()))
    jwks = os.path.join(log_dir, "jwks.json")
    with open(jwks, "w", encoding="utf-8") as handle:
        json.dump({"keys": [{**public, "kid": "bench", "alg": "RS256", "use": "sig"}]}, handle)
    issuer, audience = "https://login.bench.test", "https://tools.bench.test/mcp"
    now = int(clock.time())
    claims = {"iss": issuer, "aud": audience, "sub": "bench", "exp": now + 3600, "iat": now}
    signed = jwt.encode(claims, key, algorithm="RS256", headers={"kid": "bench"})
    static = "bench-token-" + "x" * 24
    os.environ["BENCH_MCP_TOKEN"] = static
    cfg = proxy_config(log_dir, None, durability)
    cfg["mcp"]["auth"] = {
        "tokens": [{"sender": "bench", "env": "BENCH_MCP_TOKEN"}],
        "oauth": {"issuer": issuer, "audience": audience, "jwks_file": jwks},
    }
    proxy = Proxy(cfg, local={"files": upstream()})
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/mcp"
    stop = anyio.Event()
    async with anyio.create_task_group() as group:
        group.start_soon(serve_http, proxy, "127.0.0.1", port, stop)
        with anyio.fail_after(60):
            while True:
                try:
                    await (await anyio.connect_tcp("127.0.0.1", port)).aclose()
                    break
                except OSError:
                    await anyio.sleep(0.05)
        async with AsyncExitStack() as stack:
            clients = {}
            for label, token in (("token", static), ("oauth", signed)):
                transport = http_transport(url, {"Authorization": f"Bearer {token}"})
                clients[label] = await stack.enter_async_context(Client(transport, cache=None))
            samples = await measure(
                {label: caller(client, "files__read") for label, client in clients.items()},
                rounds,
                calls,
            )
        stop.set()
    return samples


LARGE = (
    "SDK client, its stdio_client",
    "SDK client, the proxy's transport",
    "through the proxy, SDK stdio_client (before)",
    "through the proxy (now)",
)


async def large_result(log_dir: str, megabytes: float, rounds: int) -> dict[str, Any]:
    """Wall and CPU seconds per call of one MB-megabyte result, each contender each round."""
    command = [sys.executable, os.path.abspath(__file__), "--serve-upstream", "large"]
    size = int(megabytes * 1_000_000)
    sdk = StdioServerParameters(command=command[0], args=command[1:])

    def ours() -> StdioTransport:
        return StdioTransport(
            name="files",
            command=command[0],
            args=command[1:],
            env={},
            cwd=None,
            max_line_bytes=2 * size + 1_000_000,
        )

    proxies = []
    for label in ("before", "now"):
        cfg = proxy_config(os.path.join(log_dir, label), command)
        cfg["mcp"]["max_message_mb"] = 2 * megabytes + 1
        proxies.append(Proxy(cfg))
    for server in proxies[0].upstreams.values():
        # The proxy as it was before issue #44: the SDK's own stdio transport.
        server._client = lambda: Client(sdk, cache=None)  # type: ignore[method-assign]
    samples: dict[str, Any] = {label: {"wall": [], "cpu": []} for label in LARGE}
    async with AsyncExitStack() as stack:
        clients = [
            await stack.enter_async_context(Client(sdk, cache=None)),
            await stack.enter_async_context(Client(ours(), cache=None)),
        ]
        for proxy in proxies:
            await stack.enter_async_context(proxy.running())
            clients.append(
                await stack.enter_async_context(Client(proxy.server, mode="legacy", cache=None))
            )
        tools = ["big", "big", "files__big", "files__big"]
        contenders = list(zip(LARGE, clients, tools, strict=True))
        for index in range(rounds + 1):  # round 0 warms up (with a small result)
            shift = index % len(contenders)
            for label, client, tool in contenders[shift:] + contenders[:shift]:
                wall, cpu = time.perf_counter(), time.process_time()
                result = await client.call_tool(tool, {"size": size if index else 1000})
                wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
                assert not result.is_error, result.content
                if index:
                    samples[label]["wall"].append(wall)
                    samples[label]["cpu"].append(cpu)
    return samples


def _toml(cfg: dict[str, Any], prefix: str = "") -> str:
    """The bench's config as TOML (tables of strings, numbers, booleans and lists only)."""
    scalars, tables = [], []
    for key, value in cfg.items():
        if isinstance(value, dict):
            tables.append(_toml(value, f"{prefix}{key}."))
        else:
            scalars.append(f"{json.dumps(key)} = {json.dumps(value)}")
    head = f"[{prefix[:-1]}]\n" if prefix and scalars else ""
    return head + "".join(line + "\n" for line in scalars) + "".join(tables)


def summary(name: str, samples: dict[str, list[float]]) -> dict[str, float]:
    direct = statistics.median(samples["direct"])
    proxy = statistics.median(samples["proxy"])
    ratios = [(p - d) / d for p, d in zip(samples["proxy"], samples["direct"], strict=True)]
    return {
        "setup": name,
        "direct": direct,
        "proxy": proxy,
        "added": proxy - direct,
        "ratio": statistics.median(ratios),
    }  # type: ignore[dict-item]


def fmt(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    return f"{seconds * 1e6:.0f} µs" if seconds < 1e-3 else f"{seconds * 1e3:.2f} ms"


async def main(args: argparse.Namespace) -> list[dict[str, Any]]:
    rows = []
    sizes = (args.rounds, args.calls, args.durability)
    name = "in-process, pinned" if args.pins else "in-process"
    with tempfile.TemporaryDirectory() as log_dir:
        rows.append(summary(name, await in_process(log_dir, *sizes, args.pins)))
    if not args.no_stdio:
        with tempfile.TemporaryDirectory() as log_dir:
            rows.append(summary("over stdio", await over_stdio(log_dir, *sizes)))
    if args.http:
        with tempfile.TemporaryDirectory() as log_dir:
            http = await over_http(log_dir, *sizes)
        rows.append(
            {
                "setup": "over HTTP",
                "token": statistics.median(http["token"]),
                "oauth": statistics.median(http["oauth"]),
            }
        )
    if args.large:
        with tempfile.TemporaryDirectory() as log_dir:
            large = await large_result(log_dir, args.large, args.large_rounds)
        rows.append(
            {
                "setup": f"a {args.large:g} MB result over stdio",
                **{
                    label: {kind: statistics.median(v) for kind, v in times.items()}
                    for label, times in large.items()
                },
            }
        )
    with tempfile.TemporaryDirectory() as log_dir:
        inside = await inside_proxy(log_dir, *sizes, args.pins)
    rows.append({"setup": "inside the proxy (thread CPU, in-process)", **inside})
    return rows


def serve_upstream(kind: str) -> None:
    from mcp.server.stdio import stdio_server

    async def run() -> None:
        server = large_upstream() if kind == "large" else upstream()
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)


if __name__ == "__main__":
    if "--serve-upstream" in sys.argv:
        serve_upstream(sys.argv[-1])
        sys.exit(0)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: 2 rounds of 5 calls")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument(
        "--durability",
        choices=("interval", "call"),
        default="interval",
        help="the event log's durability (default \"interval\", the log's own default)",
    )
    parser.add_argument(
        "--pins", action="store_true", help="pin the upstream's tools in a lock (issue #43)"
    )
    parser.add_argument(
        "--http", action="store_true", help="also a token against an OAuth JWT over HTTP"
    )
    parser.add_argument("--no-stdio", action="store_true", help="skip the stdio setup")
    parser.add_argument(
        "--large",
        type=float,
        default=0,
        metavar="MB",
        help="also time one result of MB megabytes over stdio (issue #44)",
    )
    parser.add_argument(
        "--large-rounds", type=int, default=3, help="rounds of the --large setup (default 3)"
    )
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.calls = 2, 5
    rows = anyio.run(main, args)
    print("## MCP proxy: a tools/call through toolhooks vs straight to the upstream\n")
    print(f'event log durability "{args.durability}"\n')
    print("| setup | direct | through the proxy | added | added / direct hop |")
    print("|---|---|---|---|---|")
    http = [row for row in rows if row["setup"] == "over HTTP"]
    large = [row for row in rows if row["setup"].startswith("a ")]
    hops = [row for row in rows[:-1] if row["setup"] != "over HTTP" and row not in large]
    inside = rows[-1]
    for row in hops:
        print(
            f"| {row['setup']} | {fmt(row['direct'])} | {fmt(row['proxy'])} | {fmt(row['added'])} | {row['ratio']:.2f}x |"
        )
    met = all(row["ratio"] <= TARGET for row in hops)
    print(
        f"\ntarget: the proxy adds at most {TARGET}x the upstream hop's cost: {'met' if met else 'not met'}"
    )
    for row in http:
        print("\n## Over HTTP, per tools/call (wall clock, median)\n")
        print("| a [[mcp.auth.tokens]] token | an OAuth JWT (verified once, cached) |")
        print("|---|---|")
        print(f"| {fmt(row['token'])} | {fmt(row['oauth'])} |")
    for row in large:
        setup = row["setup"]
        print(f"\n## {setup[0].upper()}{setup[1:]}, one tools/call (median)\n")
        print("| reader | wall | CPU (this process) |")
        print("|---|---|---|")
        for label in LARGE:
            print(f"| {label} | {fmt(row[label]['wall'])} | {fmt(row[label]['cpu'])} |")
    print("\n## Inside the proxy, per tools/call (thread CPU clock, in-process, median)\n")
    print(
        "| the pipeline (rt.acall less the upstream, rt.is_visible) | the proxy's own work | the upstream hop |"
    )
    print("|---|---|---|")
    print(f"| {fmt(inside['pipeline'])} | {fmt(inside['proxy'])} | {fmt(inside['upstream'])} |")
    verdict = "met" if inside["pipeline"] <= PIPELINE_TARGET else "not met"
    print(f"\ntarget (issue #22): the pipeline <= 50 µs per call: {verdict}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(rows, handle, indent=2)
