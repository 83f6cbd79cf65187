"""One entry of the request method table: the params and result ``TypedDict`` and the handler.

The handler modules each define ``METHODS`` (name → ``Method``); ``runtime.requests.dispatch.methods``
joins them into the one table. The table is the definition: the dispatcher checks ``params`` against
``Method.params`` before the handler runs, ``scripts/gen_protocol.py`` writes the TypeScript request
map from it, and the documentation test reads it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypedDict, TypeVar

from runtime.host.validate import typed_dict_problem

if TYPE_CHECKING:
    from runtime.requests.ports import Ports

P = TypeVar("P")
R = TypeVar("R")


class NoParams(TypedDict):
    """A method that takes no parameters (``params`` may be omitted)."""


FILE_PARAMS = ("path", "size")
"""What the host adds to ``params`` when a request carries a file (``Method.file``): where it stored the
file in the runtime's file system (under ``INCOMING_DIR``) and its size; the page never sends them."""


@dataclass(frozen=True)
class Method(Generic[P, R]):
    params: type[P]
    result: type[R]
    handler: Callable[[Ports, P], Awaitable[R]]
    file: bool = False  # the request carries an upload: the host adds FILE_PARAMS to params

    def problem(self, params: Mapping[str, Any]) -> str:
        """What is wrong with ``params`` as this method's (``""``: nothing)."""
        return typed_dict_problem(dict(params), self.params)


Table = dict[str, Method[Any, Any]]
