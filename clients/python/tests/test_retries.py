"""Retries with backoff on 429, against a server whose rate limit is one request per second (burst 2)."""

import unittest

from godb import GoDB, GoDBError

from .support import LIMITED_URL, new_tenant

needs_limited_server = unittest.skipUnless(LIMITED_URL, "set GODB_LIMITED_URL to a GoDB with RATE_LIMIT_RPS=1")


@needs_limited_server
class RetryTest(unittest.TestCase):
    def test_429_is_retried_after_retry_after_and_the_calls_succeed(self):
        retries = []
        client, _, _ = new_tenant(
            LIMITED_URL, max_retries=10, on_retry=lambda attempt, delay, error: retries.append((delay, error))
        )
        for _ in range(30):  # the burst of 2 runs out unless each call takes a second, which none does
            self.assertIn("collections", client.collections.list())
            if retries:
                break
        self.assertTrue(retries, "some calls were answered 429 and retried")
        self.assertIn("collections", client.collections.list())
        for delay, error in retries:
            self.assertEqual((error.status, error.code), (429, "RATE_LIMITED"))
            self.assertEqual(error.retry_after, delay, "the wait is the server's Retry-After")
            self.assertGreater(delay, 0)

    def test_without_retries_the_429_is_raised(self):
        client = GoDB(LIMITED_URL, max_retries=0)
        with self.assertRaises(GoDBError) as caught:
            for _ in range(10):
                client.auth.register("nobody@example.com", "password-1234")  # no tenant: registers nothing
        self.assertEqual((caught.exception.status, caught.exception.code), (429, "RATE_LIMITED"))
        self.assertGreater(caught.exception.retry_after, 0)

    def test_a_retry_after_longer_than_max_backoff_is_not_waited_for(self):
        retries = []
        client = GoDB(LIMITED_URL, max_retries=5, max_backoff=0.001, on_retry=lambda *args: retries.append(args))
        with self.assertRaises(GoDBError) as caught:
            for _ in range(10):
                client.auth.register("nobody@example.com", "password-1234")
        self.assertEqual(caught.exception.status, 429)
        self.assertEqual(retries, [])
