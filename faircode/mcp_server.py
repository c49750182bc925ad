"""`faircode-mcp`: faircode's tools for agents, as an MCP server over stdio (SPEC.md 11).

Built on the `mcp` package's low-level ``Server`` rather than ``MCPServer`` (FastMCP):
the input schemas are written out by hand so that they name the SPEC section 7 options
exactly, a failure reaches the client as the project's own one-line message (MCPServer
prefixes ``Error executing tool ...`` and reports bad argument types as pydantic
dumps), and a result is the object the CLI's ``--json`` prints, not a re-serialisation.
The tools themselves live in :mod:`faircode.mcptools`, which does not import ``mcp``.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from typing import Any

from ._version import __version__
from .cliparse import Parser
from .errors import EXIT_INTERRUPTED, EXIT_OK, FaircodeError, require
from .mcptools import DESCRIPTIONS, SCHEMAS, Root, run_tool
from .safetext import shown

PROG = "faircode-mcp"
INSTRUCTIONS = (
    "faircode profiles who is, and is not, represented in a table (CSV, Parquet, Arrow), "
    "compares two tables for representation drift, and evaluates a model's predictions "
    "per subgroup. Paths are files inside the server's root folder."
)


def build_parser():
    parser = Parser(
        prog=PROG,
        description=(
            "Serve faircode's tools (profile_dataset, compare_datasets, proxy_hints, "
            "evaluate_model) to an MCP client over standard input and output."
        ),
    )
    parser.add_argument(
        "--root",
        metavar="DIR",
        help=(
            "the only folder the tools read: paths are relative to it, and a path outside "
            "it (absolute, through '..' or a symbolic link) is refused "
            "(default: the working directory)"
        ),
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {_version()}")
    return parser


def _version() -> str:
    return __version__


def make_server(root: Root) -> Any:
    """The low-level MCP server answering tools/list and tools/call for ``root``."""
    anyio_to_thread = require("anyio.to_thread", PROG)
    lowlevel = require("mcp.server.lowlevel", PROG)
    types = require("mcp_types", PROG)

    tools = [
        types.Tool(name=name, description=DESCRIPTIONS[name], input_schema=schema)
        for name, schema in SCHEMAS.items()
    ]

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: Any) -> Any:
        # a worker thread: profiling a large file must not stall the protocol loop
        outcome = await anyio_to_thread.run_sync(
            run_tool, root, params.name, params.arguments, abandon_on_cancel=True
        )
        content = [types.TextContent(type="text", text=outcome.text)]
        if outcome.is_error:
            return types.CallToolResult(content=content, is_error=True)
        return types.CallToolResult(content=content, structured_content=outcome.data)

    return lowlevel.Server(
        "faircode",
        version=_version(),
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


class _ReplyToBadLines:
    """The server's read stream, answering each line that is not a JSON-RPC message.

    The `mcp` package passes such a line on as an exception, which its server logs and
    drops: the client then waits forever for an answer. JSON-RPC 2.0 (section 5.1)
    answers it with an error whose id is null: -32700 Parse error for text that is not
    JSON, -32600 Invalid Request for JSON that is no message (SPEC 11)."""

    def __init__(self, inner: Any, write_stream: Any) -> None:
        self.inner, self.write_stream = inner, write_stream

    def __getattr__(self, name: str) -> Any:  # last_context, as the transport sets it
        return getattr(self.inner, name)

    async def _answer(self, exc: Exception) -> None:
        from mcp.shared.message import SessionMessage  # lazy: optional extra 'mcp'

        types = require("mcp_types", PROG)
        kinds = [e.get("type") for e in getattr(exc, "errors", list)()]
        if "json_invalid" in kinds:
            code, text = types.PARSE_ERROR, "Parse error: the line is not JSON"
        else:
            code, text = types.INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message"
        error = types.JSONRPCError(
            jsonrpc="2.0", id=None, error=types.ErrorData(code=code, message=text)
        )
        await self.write_stream.send(SessionMessage(message=error))

    async def receive(self) -> Any:
        while isinstance(item := await self.inner.receive(), Exception):
            await self._answer(item)
        return item

    def __aiter__(self) -> _ReplyToBadLines:
        return self

    async def __anext__(self) -> Any:
        while isinstance(item := await self.inner.__anext__(), Exception):
            await self._answer(item)
        return item

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def __aenter__(self) -> _ReplyToBadLines:
        await self.inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> bool | None:
        return await self.inner.__aexit__(*exc)


def serve(root: Root) -> None:
    """Serve over stdio until the client closes standard input. A call still running
    then is abandoned (its worker thread is not waited for: see `main`)."""
    anyio = require("anyio", PROG)
    stdio = require("mcp.server.stdio", PROG)
    server = make_server(root)

    async def run() -> None:
        async with stdio.stdio_server() as (read_stream, write_stream):
            await server.run(
                _ReplyToBadLines(read_stream, write_stream),
                write_stream,
                server.create_initialization_options(),
            )

    anyio.run(run)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        root = Root(args.root if args.root is not None else os.getcwd())
        require("mcp", PROG)  # one line naming the extra, before any protocol traffic
        os.chdir(root.path)  # relative paths, and the names in messages, are the root's
        serve(root)
        _end_running_calls()
    except FaircodeError as err:
        sys.stderr.write(f"{PROG}: error: {shown(str(err))}\n")
        return err.exit_code
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    return EXIT_OK


def _end_running_calls() -> None:
    """Exit now when a tool call is still running on a worker thread after the client
    closed standard input: nobody can read its answer, and the interpreter would wait
    for that thread (a large file, or any long call) before exiting. os._exit ends the
    process, and so the call, without waiting."""
    main_thread = threading.main_thread()
    running = [t for t in threading.enumerate() if t is not main_thread and not t.daemon]
    if any(t.is_alive() for t in running):
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(EXIT_OK)


if __name__ == "__main__":
    raise SystemExit(main())
