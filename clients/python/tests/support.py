"""Shared set-up of the live tests: the server the Node test started, and a fresh tenant on it."""

import os
import unittest
import uuid
from typing import Tuple

from godb import GoDB

URL = os.environ.get("GODB_URL")
LIMITED_URL = os.environ.get("GODB_LIMITED_URL")

needs_server = unittest.skipUnless(URL, "set GODB_URL to a running GoDB server (python-client.test.ts does)")


def new_tenant(url: str, **options) -> Tuple[GoDB, str, str]:
    """Registers a new tenant and logs its admin in; returns the client, the e-mail and the password."""
    client = GoDB(url, **options)
    email = "py-%s@example.com" % uuid.uuid4().hex[:12]
    password = "password-1234"
    client.auth.register(email, password, tenant_id=str(uuid.uuid4()))
    client.login(email, password)
    return client, email, password
