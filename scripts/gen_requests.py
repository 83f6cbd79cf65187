"""The TypeScript request map, written from the one request method table (``runtime.requests.dispatch``).

``request-types.gen.ts`` holds a type per params and result TypedDict; ``requests.gen.ts`` re-exports
them with ``RequestMap`` (method → params, result) and the method list; ``request-shapes.gen.ts`` the
field tables the page checks a reply's result with (``web/src/protocol/requests.ts``). Shapes that
``messages.gen.ts`` already defines are imported from it.
Called by ``scripts/gen_protocol.py`` (``npm run protocol:gen`` / ``protocol:check``).
"""

from __future__ import annotations

import json
from typing import Any

from runtime.host.validate import shapes_in
from runtime.requests.dispatch import methods
from runtime.requests.method import FILE_PARAMS, Method
from scripts.gen_protocol import HEADER, _aliases_in, _doc, _fields, _message_shapes, schema, ts_type

SOURCE = "the request method table (runtime/requests/, runtime/persist/display.py)"
MAX_LINE = 120  # a type that fits is written on one line


def frame_shapes() -> set[str]:
    """The TypedDicts messages.gen.ts defines (imported, not written again)."""
    return {c.__name__ for c in _message_shapes()}


def request_shapes(table: dict[str, Method[Any, Any]]) -> list[type]:
    """Every TypedDict the table reaches, parts first; two shapes of one name stop the generator."""
    shapes = shapes_in(*(hint for method in table.values() for hint in (method.params, method.result)))
    names: dict[str, type] = {}
    for cls in shapes:
        if names.setdefault(cls.__name__, cls) is not cls:
            raise TypeError(f"two request shapes are named {cls.__name__}: rename one (TypeScript has one namespace)")
    return shapes


def _type(cls: type) -> list[str]:
    doc = _doc(cls)
    out = [f"/** {doc} */"] if doc else []
    fields = _fields(cls)
    if not fields:
        return [*out, f"export type {cls.__name__} = Record<string, never>;\n"]
    members = [f"{name}{'' if required else '?'}: {ts_type(hint)};" for name, hint, required in fields]
    one_line = f"export type {cls.__name__} = {{ {' '.join(members)[:-1]} }};"
    if len(one_line) <= MAX_LINE:
        return [*out, one_line, ""]
    return [*out, f"export type {cls.__name__} = {{", *(f"  {m}" for m in members), "};\n"]


def _params(method: Method[Any, Any]) -> str:
    name = method.params.__name__
    if not method.file:
        return name
    return f"Omit<{name}, {' | '.join(json.dumps(f) for f in FILE_PARAMS)}>"


def request_types_ts() -> str:
    """``request-types.gen.ts``: a type per params and result shape (``requests.gen.ts`` re-exports them)."""
    shapes = request_shapes(methods())
    imported = frame_shapes()
    aliases = sorted({n for c in shapes for _, h, _ in _fields(c) for n in _aliases_in(h)})
    out = [HEADER.format(source=SOURCE)]
    if aliases:
        out.append(f'import type {{ {", ".join(aliases)} }} from "./constants.gen";')
    frames = sorted(c.__name__ for c in shapes if c.__name__ in imported)
    if frames:
        out.append(f'import type {{ {", ".join(frames)} }} from "./messages.gen";')
    out.append("")
    for cls in shapes:
        if cls.__name__ not in imported:
            out.extend(_type(cls))
    return "\n".join(out).rstrip("\n") + "\n"


def requests_ts() -> str:
    """``requests.gen.ts``: ``RequestMap`` and the method list; the shapes' types come from request-types.gen.ts."""
    table = methods()
    imported = frame_shapes()
    used = sorted({c.__name__ for m in table.values() for c in (m.params, m.result)})
    out = [HEADER.format(source=SOURCE)]
    frames = [n for n in used if n in imported]
    if frames:
        out.append(f'import type {{ {", ".join(frames)} }} from "./messages.gen";')
    out.append(f'import type {{ {", ".join(n for n in used if n not in imported)} }} from "./request-types.gen";')
    out.append('export type * from "./request-types.gen";\n')
    out.append("/** Every request method: what the page sends (`params`) and what the reply's `result` is. */")
    out.append("export interface RequestMap {")
    for name, method in table.items():
        file = "; file: true" if method.file else ""
        out.append(f"  {name}: {{ params: {_params(method)}; result: {method.result.__name__}{file} }};")
    out.append("}\n")
    out.append(f"export const REQUEST_METHODS = [{', '.join(json.dumps(n) for n in table)}] as const;")
    return "\n".join(out) + "\n"


def request_shapes_ts() -> str:
    table = methods()
    out = [HEADER.format(source=SOURCE), 'import type { FieldTable } from "./validate";\n']
    out.append("/** The result shape (in REQUEST_SHAPES) of each method. */")
    pairs = ", ".join(f"{n}: {json.dumps(m.result.__name__)}" for n, m in table.items())
    out.append(f"export const REQUEST_RESULT_SHAPES = {{ {pairs} }} as const;")
    out.append("\n/** The fields of every request shape, for checking a reply's result (runtime-client.ts). */")
    out.append("export const REQUEST_SHAPES: Readonly<Record<string, FieldTable>> = {")
    for cls in request_shapes(table):
        fields = {n: {"schema": schema(h), "required": r} for n, h, r in _fields(cls)}
        out.append(f"  {cls.__name__}: {json.dumps(fields)},")
    out.append("};")
    return "\n".join(out) + "\n"
