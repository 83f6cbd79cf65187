"""Memory panel requests: list, search (filter-as-you-type), save, update, delete."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from runtime.requests.params import flag, integer, optional_flag, optional_tags, optional_text, text
from runtime.store.values import Memory

if TYPE_CHECKING:
    from runtime.requests.ports import Handler, Ports


def _memory(memory: Memory) -> dict[str, Any]:
    return {**asdict(memory), "tags": list(memory.tags)}


async def memory_list(ports: Ports, params: dict[str, Any]) -> dict[str, Any]:
    store = await ports.state.store()
    limit = integer(params, "limit", default=100, low=1, high=10_000)
    offset = integer(params, "offset", default=0)
    memories = store.memory_list(limit=limit, offset=offset)
    return {"memories": [_memory(m) for m in memories], "total": store.memory_count()}


async def memory_search(ports: Ports, params: dict[str, Any]) -> dict[str, Any]:
    """Every word must match; the last one may be half-typed."""
    store = await ports.state.store()
    query = text(params, "query", empty=True)
    limit = integer(params, "limit", default=50, low=1, high=1000)
    hits = store.memory_search(query, limit=limit, match="all", prefix_last=True)
    return {"memories": [{**_memory(h.memory), "rank": h.rank} for h in hits]}


async def memory_save(ports: Ports, params: dict[str, Any]) -> dict[str, Any]:
    store = await ports.state.store()
    pinned = flag(params, "pinned", default=False)
    memory = store.memory_save(text(params, "text"), optional_tags(params), pinned=pinned)
    await ports.state.save()
    return {"memory": _memory(memory)}


async def memory_update(ports: Ports, params: dict[str, Any]) -> dict[str, Any]:
    store = await ports.state.store()
    memory = store.memory_update(
        integer(params, "id", low=1),
        text=optional_text(params, "text"),
        tags=optional_tags(params),
        pinned=optional_flag(params, "pinned"),
    )
    await ports.state.save()
    return {"memory": _memory(memory)}


async def memory_delete(ports: Ports, params: dict[str, Any]) -> dict[str, Any]:
    store = await ports.state.store()
    memory_id = integer(params, "id", low=1)
    store.memory_delete(memory_id)
    await ports.state.save()
    return {"deleted": memory_id}


METHODS: dict[str, Handler] = {
    "memory_list": memory_list,
    "memory_search": memory_search,
    "memory_save": memory_save,
    "memory_update": memory_update,
    "memory_delete": memory_delete,
}
