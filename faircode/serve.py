"""``faircode serve``: the website (``site/``, or a built copy with ``--site``) on
127.0.0.1, with the standard library's http.server. The page reads files in the
browser; this server only hands out the site's own files.

A site built by ``scripts/build_site.py`` also holds ``pyodide/`` (Pyodide's core and
standard library, faircode's wheel and its lock file) for the page's "Check with the
Python engine" (SPEC 14.1): its module worker gets its own Content-Security-Policy
header (a worker loaded from a URL takes its policy from the response, not from the
page): the page's, plus 'wasm-unsafe-eval', which compiling Pyodide's WebAssembly
needs, and nothing that reaches another host."""

from __future__ import annotations

import errno
import functools
import http.server
import sys
import webbrowser
from pathlib import Path

from .errors import InputError
from .htmlreport import site_dir

#: The policy of the Python engine's module worker (site/pycheck-worker.mjs) and the
#: modules it imports: the page's own (site/index.html) plus 'wasm-unsafe-eval'.
WORKER_POLICY = (
    "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'"
)


#: The largest TCP port.
MAX_PORT = 65535


class _Handler(http.server.SimpleHTTPRequestHandler):
    # .js must be served as JavaScript for the page's scripts and workers
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".js": "text/javascript",
        ".mjs": "text/javascript",
        ".csv": "text/csv",
        ".wasm": "application/wasm",  # (WebAssembly's streaming compile requires it)
        ".zip": "application/zip",
        ".whl": "application/zip",
        ".json": "application/json",
    }

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        if self.path.split("?", 1)[0].endswith(".mjs"):
            self.send_header("Content-Security-Policy", WORKER_POLICY)
        super().end_headers()

    def log_message(self, format: str, *args) -> None:  # noqa: A002 (http.server's name)
        pass


def make_server(
    port: int = 8000, site: str | Path | None = None
) -> http.server.ThreadingHTTPServer:
    """A server of the site on 127.0.0.1:``port`` (0: any free port), not yet running.

    Parameters
    ----------
    port : int
        The TCP port; 0 picks a free one.
    site : str or Path, optional
        The folder to serve (a site built by scripts/build_site.py); default: the
        package's own site (``faircode/site``, or ``site/`` of a source tree).
    """
    if not 0 <= port <= MAX_PORT:
        raise InputError(f"--port: {port} is out of range (0..{MAX_PORT}; 0: any free port)")
    folder = Path(site) if site is not None else site_dir()
    if not (folder / "index.html").is_file():
        raise InputError(
            f"--site: {folder}: no index.html there; give the folder that "
            "scripts/build_site.py built (build/site)"
        )
    handler = functools.partial(_Handler, directory=str(folder))
    try:
        return http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise InputError(
                f"--port {port}: the port is in use on 127.0.0.1 (another server listens "
                "there); pass another --port, or --port 0 for any free one"
            ) from None
        raise InputError(
            f"--port {port}: cannot listen on 127.0.0.1:{port} ({exc.strerror or exc}); "
            "pass another --port (above 1023 needs no privileges), or --port 0 for any "
            "free one"
        ) from None


def serve(port: int = 8000, open_browser: bool = True, site: str | Path | None = None) -> int:
    server = make_server(port, site)
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    sys.stderr.write(f"faircode: serving the site at {url} (Ctrl-C stops)\n")
    sys.stderr.flush()
    if open_browser:
        webbrowser.open(url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        sys.stderr.write("faircode: stopped\n")
    finally:
        server.server_close()
    return 0
