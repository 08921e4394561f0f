"""Prints, as JSON, the request each operation method of the client sends: the drift test compares it with the
catalogue. Every method marked with an operation id is called with placeholder arguments on a client whose
transport records the request instead of sending it.

Run: python3 tests/record_methods.py (from clients/python).
"""

import inspect
import json
import os
import sys
import typing
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from godb import GoDB  # noqa: E402
from godb._namespace import _Namespace  # noqa: E402


class Recorded(Exception):
    def __init__(self, request):
        super().__init__("recorded")
        self.request = request


class RecordingOpener:
    def open(self, request, timeout=None):
        raise Recorded(request)


def placeholder(name, annotation):
    origin = typing.get_origin(annotation)
    if annotation is str:
        return "p-%s" % name
    if annotation is int:
        return 1
    if annotation is float:
        return 1.0
    if origin in (list, typing.get_origin(typing.Iterable[int])):
        return []
    if origin is dict:
        return {}
    return "p-%s" % name


def returned_type(method):
    """The name of the godb.types TypedDict a method is annotated to return, or None."""
    returned = inspect.signature(method).return_annotation
    if isinstance(returned, type) and returned.__module__ == "godb.types":
        return returned.__name__
    return None


def record():
    client = GoDB("http://godb.invalid", api_key="godb_recording")
    client._opener = RecordingOpener()
    calls = []
    for namespace_name, namespace in sorted(vars(client).items()):
        if not isinstance(namespace, _Namespace):
            continue
        for method_name, method in inspect.getmembers(namespace, inspect.ismethod):
            operation_id = getattr(method, "__godb_operation__", None)
            if operation_id is None:
                continue
            args = [
                placeholder(name, parameter.annotation)
                for name, parameter in inspect.signature(method).parameters.items()
                if parameter.default is inspect.Parameter.empty
                and parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD)
            ]
            try:
                method(*args)
            except Recorded as recorded:
                url = urllib.parse.urlsplit(recorded.request.full_url)
                calls.append(
                    {
                        "operation": operation_id,
                        "namespace": namespace_name,
                        "method": method_name,
                        "http_method": recorded.request.get_method(),
                        "path": url.path,
                        "returns": returned_type(method),
                    }
                )
            else:
                raise AssertionError("%s.%s sent no request" % (namespace_name, method_name))
    return calls


if __name__ == "__main__":
    json.dump(record(), sys.stdout, indent=1)
