"""The client's own bounds: a peer that never ends a line costs it a bounded buffer, then an error."""

import http.server
import socket
import threading

import pytest

import scanbridge as sb
from scanbridge.lines import LineReader


def test_a_line_past_the_bound_is_an_error_before_its_end():
    ours, theirs = socket.socketpair()
    with ours, theirs:
        reader = LineReader(ours, limit=1000)
        theirs.sendall(b'{"a":1}\r\n' + b"x" * 5000)  # and no newline, ever

        assert reader.read_line(None) == b'{"a":1}'
        with pytest.raises(sb.LineTooLong):
            reader.read_line(None)
        assert len(reader._buffer) <= 1002  # never read further than the bound


def test_a_timeout_keeps_what_was_read():
    ours, theirs = socket.socketpair()
    with ours, theirs:
        reader = LineReader(ours, limit=1000)
        theirs.sendall(b'{"half":')
        with pytest.raises(TimeoutError):
            reader.read_line(deadline=0)
        theirs.sendall(b'"line"}\n')

        assert reader.read_line(None) == b'{"half":"line"}'


def test_a_daemon_that_sends_an_endless_line(tmp_path):
    folder = tmp_path / "fake"
    folder.mkdir(mode=0o700)
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(folder / "s.sock"))
        server.listen()

        def answer_forever():
            connection, _ = server.accept()
            with connection:
                connection.recv(4096)
                try:
                    for _ in range(64):
                        connection.sendall(b"x" * 65536)
                except OSError:
                    pass  # the client gave up, as it should

        thread = threading.Thread(target=answer_forever)
        thread.start()
        client = sb.Client(str(folder / "s.sock"), max_line_bytes=100_000)
        with pytest.raises(sb.LineTooLong):
            client.call("bridge.hello")
        assert not client.connected
        client.close()
        thread.join(10)


class _EndlessEvent(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        try:
            self.wfile.write(b"event: scan\ndata: " + b"x" * 300_000)
        except OSError:
            pass

    def log_message(self, *args):
        pass


def test_a_gateway_event_past_the_bound():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _EndlessEvent)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = "http://127.0.0.1:%d" % server.server_address[1]
        client = sb.GatewayClient(url, "sbt_test", max_line_bytes=100_000)
        subscription = client.subscribe(since=0, resume=False)
        with pytest.raises(sb.LineTooLong):
            subscription.next(timeout=10)
        subscription.close()
    finally:
        server.shutdown()
        server.server_close()
