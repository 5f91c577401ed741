"""The simulator's HTTP side at a batch's burst: connections are kept alive (HTTP/1.1), and the listen
backlog holds a full in-flight burst (socketserver's default of 5 dropped connections, and each
dropped one waited for the client's SYN retry, a second or more, with the notebook idle)."""
import http.client
import json
from concurrent.futures import ThreadPoolExecutor

from lib.models.backends.inflight import LOOPBACK_DEFAULT
from lib.simulate.server import SimServer
from lib.simulate.core.truth_file import Truth

BODY = json.dumps({"model": "sim", "messages": [{"role": "user", "content": "Say something."}], "max_tokens": 8})


def _post(conn):
    conn.request("POST", "/v1/chat/completions", BODY, {"Content-Type": "application/json"})
    reply = conn.getresponse()
    return reply.status, json.loads(reply.read())


def test_one_connection_carries_many_requests(tmp_path):
    with SimServer(Truth(), tmp_path) as sim:
        conn = http.client.HTTPConnection("127.0.0.1", sim.port, timeout=5)
        conn.connect()
        first = conn.sock
        for _ in range(3):
            status, body = _post(conn)
            assert status == 200 and body["choices"][0]["message"]["content"]
            assert conn.sock is first  # the same socket: the server did not close it
        conn.close()
        assert sim.stats()["requests"] == 3


def test_a_burst_of_connections_fits_the_listen_backlog(tmp_path):
    with SimServer(Truth(), tmp_path) as sim:
        assert sim.backlog >= 4 * LOOPBACK_DEFAULT

        def one(_):
            conn = http.client.HTTPConnection("127.0.0.1", sim.port, timeout=5)
            try:
                return _post(conn)[0]
            finally:
                conn.close()

        with ThreadPoolExecutor(LOOPBACK_DEFAULT) as pool:
            assert list(pool.map(one, range(2 * LOOPBACK_DEFAULT))) == [200] * (2 * LOOPBACK_DEFAULT)


def test_replies_on_a_kept_alive_connection_are_not_held_back(tmp_path):
    """A reply is two writes (headers, body); without TCP_NODELAY the body waited for the client's
    delayed ACK (~40 ms a request): 40 requests one after another took 1.6 s or more."""
    import time

    with SimServer(Truth(), tmp_path) as sim:
        conn = http.client.HTTPConnection("127.0.0.1", sim.port, timeout=5)
        _post(conn)  # connect and warm up
        t0 = time.perf_counter()
        for _ in range(40):
            assert _post(conn)[0] == 200
        took = time.perf_counter() - t0
        conn.close()
    assert took < 1.0, f"40 requests on one connection took {took:.2f} s"
