"""``faircode serve``: the website (``site/``) on 127.0.0.1, with the standard library's
http.server. The page reads files in the browser; this server only hands out the
site's own files."""

from __future__ import annotations

import functools
import http.server
import sys
import webbrowser

from .htmlreport import site_dir


class _Handler(http.server.SimpleHTTPRequestHandler):
    # .js must be served as JavaScript for the page's scripts and workers
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".js": "text/javascript",
        ".csv": "text/csv",
    }

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        super().end_headers()

    def log_message(self, format: str, *args) -> None:  # noqa: A002 (http.server's name)
        pass


def make_server(port: int = 8000) -> http.server.ThreadingHTTPServer:
    """A server of the site on 127.0.0.1:``port`` (0: any free port), not yet running."""
    handler = functools.partial(_Handler, directory=str(site_dir()))
    return http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)


def serve(port: int = 8000, open_browser: bool = True) -> int:
    server = make_server(port)
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
