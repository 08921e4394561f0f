"""What the client does before any answer: unreachable servers, silent servers, missing path parameters."""

import socket
import threading
import unittest

from godb import GoDB, GoDBError


class OfflineTest(unittest.TestCase):
    def test_an_unreachable_server_is_connection_failed(self):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        with self.assertRaises(GoDBError) as caught:
            GoDB("http://127.0.0.1:%d" % port).collections.list()
        self.assertEqual((caught.exception.code, caught.exception.status), ("CONNECTION_FAILED", None))

    def test_a_server_that_never_answers_is_a_timeout(self):
        silent = socket.socket()
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)
        accepted = []
        thread = threading.Thread(target=lambda: accepted.append(silent.accept()), daemon=True)
        thread.start()
        try:
            with self.assertRaises(GoDBError) as caught:
                GoDB("http://127.0.0.1:%d" % silent.getsockname()[1], timeout=0.2).collections.list()
            self.assertEqual(caught.exception.code, "TIMEOUT")
        finally:
            thread.join()
            for connection, _ in accepted:
                connection.close()
            silent.close()

    def test_a_missing_path_parameter_is_refused_before_sending(self):
        with self.assertRaises(ValueError):
            GoDB("http://127.0.0.1:9").documents.get("")
