"""Memory panel requests: list, search (filter-as-you-type), save, update, delete."""

from typing import TYPE_CHECKING, NotRequired, TypedDict

from runtime.requests.method import Method, Table
from runtime.requests.params import flag, integer, optional_flag, optional_tags, optional_text, text
from runtime.store.values import Memory

if TYPE_CHECKING:
    from runtime.requests.ports import Ports


class MemoryRecord(TypedDict):
    """*Memory* in docs/protocol.md."""

    id: int
    text: str
    tags: list[str]
    pinned: bool
    created: str
    updated: str


class MemoryHitRecord(MemoryRecord):
    rank: float  # lower is a better match


class MemoryListParams(TypedDict):
    limit: NotRequired[int]
    offset: NotRequired[int]


class MemoryList(TypedDict):
    memories: list[MemoryRecord]
    total: int


class MemorySearchParams(TypedDict):
    query: str
    limit: NotRequired[int]


class MemorySearch(TypedDict):
    memories: list[MemoryHitRecord]


class MemorySaveParams(TypedDict):
    text: str
    tags: NotRequired[list[str] | None]
    pinned: NotRequired[bool]


class MemoryUpdateParams(TypedDict):
    id: int
    text: NotRequired[str | None]
    tags: NotRequired[list[str] | None]
    pinned: NotRequired[bool | None]


class MemoryId(TypedDict):
    id: int


class MemoryReply(TypedDict):
    memory: MemoryRecord


class MemoryDeleted(TypedDict):
    deleted: int


def _memory(memory: Memory) -> MemoryRecord:
    m = memory
    return {
        "id": m.id,
        "text": m.text,
        "tags": list(m.tags),
        "pinned": m.pinned,
        "created": m.created,
        "updated": m.updated,
    }


async def memory_list(ports: "Ports", params: MemoryListParams) -> MemoryList:
    store = await ports.state.store()
    limit = integer(params, "limit", default=100, low=1, high=10_000)
    offset = integer(params, "offset", default=0)
    memories = store.memory_list(limit=limit, offset=offset)
    return {"memories": [_memory(m) for m in memories], "total": store.memory_count()}


async def memory_search(ports: "Ports", params: MemorySearchParams) -> MemorySearch:
    """Every word must match; the last one may be half-typed."""
    store = await ports.state.store()
    query = text(params, "query", empty=True)
    limit = integer(params, "limit", default=50, low=1, high=1000)
    hits = store.memory_search(query, limit=limit, match="all", prefix_last=True)
    rows: list[MemoryHitRecord] = [{**_memory(h.memory), "rank": h.rank} for h in hits]
    return {"memories": rows}


async def memory_save(ports: "Ports", params: MemorySaveParams) -> MemoryReply:
    store = await ports.state.store()
    pinned = flag(params, "pinned", default=False)
    memory = store.memory_save(text(params, "text"), optional_tags(params), pinned=pinned)
    await ports.state.save()
    return {"memory": _memory(memory)}


async def memory_update(ports: "Ports", params: MemoryUpdateParams) -> MemoryReply:
    store = await ports.state.store()
    memory = store.memory_update(
        integer(params, "id", low=1),
        text=optional_text(params, "text"),
        tags=optional_tags(params),
        pinned=optional_flag(params, "pinned"),
    )
    await ports.state.save()
    return {"memory": _memory(memory)}


async def memory_delete(ports: "Ports", params: MemoryId) -> MemoryDeleted:
    store = await ports.state.store()
    memory_id = integer(params, "id", low=1)
    store.memory_delete(memory_id)
    await ports.state.save()
    return {"deleted": memory_id}


METHODS: Table = {
    "memory_list": Method(MemoryListParams, MemoryList, memory_list),
    "memory_search": Method(MemorySearchParams, MemorySearch, memory_search),
    "memory_save": Method(MemorySaveParams, MemoryReply, memory_save),
    "memory_update": Method(MemoryUpdateParams, MemoryReply, memory_update),
    "memory_delete": Method(MemoryId, MemoryDeleted, memory_delete),
}
