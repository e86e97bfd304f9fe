#!/usr/bin/env python3
"""Serves a folder on localhost for the chiffon web pages.

    web/serve.py DIR [--port N] [--result FILE]

With --result, a POST to /result writes its body to FILE and stops the server (web/test's
runner); the chosen port is printed first on stdout (``--port 0`` picks a free one).
"""
import argparse
import functools
import http.server
import sys
import threading


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--port", type=int, default=8080)
    ap.add_argument("--result")
    args = ap.parse_args()

    class Handler(http.server.SimpleHTTPRequestHandler):
        extensions_map = {
            **http.server.SimpleHTTPRequestHandler.extensions_map,
            ".wasm": "application/wasm",
            ".js": "text/javascript",
        }

        def do_POST(self):
            if self.path != "/result" or not args.result:
                self.send_error(404)
                return
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            with open(args.result, "wb") as f:
                f.write(body)
            self.send_response(204)
            self.end_headers()
            threading.Thread(target=self.server.shutdown).start()

        def log_message(self, *a):
            if not args.result:
                super().log_message(*a)

    handler = functools.partial(Handler, directory=args.dir)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), handler)
    print(server.server_address[1], flush=True)
    if not args.result:
        print(f"serving {args.dir} at http://127.0.0.1:{server.server_address[1]}/",
              file=sys.stderr, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
