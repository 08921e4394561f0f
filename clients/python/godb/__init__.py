"""GoDB's Python client: standard library only, Python 3.9 or later.

Example::

    from godb import GoDB, GoDBError

    client = GoDB("http://localhost:8081", api_key="godb_...")
    client.collections.create("products", {"image": {"dimensions": 4, "distance": "cosine"}})
"""

from .client import GoDB, __version__
from .errors import GoDBError
from .namespaces import ImportProgress, ImportResult

__all__ = ["GoDB", "GoDBError", "ImportProgress", "ImportResult", "__version__"]
