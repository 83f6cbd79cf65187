"""The MCP skills extension (SEP-2640, ``io.modelcontextprotocol/skills``) for the test tool server.

Three skills, each file a ``skill://`` resource read with ``resources/read``; ``skills/list`` gives
each one's frontmatter and the manifest of its files (``sha256:`` digest and size), ``skills/get``
one of them by the URI of its ``SKILL.md`` (``-32602`` for any other):

- ``greeting``: a ``SKILL.md``, a reference and a script;
- ``haiku``, under the prefix ``poems/``: a ``SKILL.md`` alone;
- ``tampered``: its manifest gives ``notes.md`` the digest of other bytes (what a changed file, or a
  gateway rewriting one of the two, looks like), so a client that checks digests refuses it.

Built on the official SDK's ``Extension`` (``mcp.server.extension``): its methods are added to the
server and the extension is declared under ``capabilities.extensions``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from mcp_types import PaginatedRequestParams, RequestParams

from mcp.server.context import ServerRequestContext
from mcp.server.extension import Extension, MethodBinding, ResourceBinding
from mcp.server.mcpserver.resources import TextResource
from mcp.shared.exceptions import MCPError

SKILLS_EXTENSION = "io.modelcontextprotocol/skills"
INVALID_PARAMS = -32602


@dataclass(frozen=True)
class Skill:
    path: str  # the skill path: its last segment is the skill's name
    description: str
    files: dict[str, str]  # file path in the skill -> text (SKILL.md included)
    wrong_digest: str = ""  # a file whose listed digest is not that of its bytes

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    def uri(self, file: str = "SKILL.md") -> str:
        return f"skill://{self.path}/{file}"


def _skill_md(name: str, description: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n\n{body}\n"


SKILLS = (
    Skill(
        "greeting",
        "Greet a person warmly in the language they write in.",
        {
            "SKILL.md": _skill_md(
                "greeting",
                "Greet a person warmly in the language they write in.",
                "# Greeting\n\nPick a phrase from `references/phrases.md`; `scripts/hello.py` prints one.",
            ),
            "references/phrases.md": "# Phrases\n\n- Hello\n- Bonjour\n- Hallo\n",
            "scripts/hello.py": 'print("Hello from the greeting skill")\n',
        },
    ),
    Skill(
        "poems/haiku",
        "Write a haiku of five, seven and five syllables.",
        {"SKILL.md": _skill_md("haiku", "Write a haiku of five, seven and five syllables.", "# Haiku\n\nCount.")},
    ),
    Skill(
        "tampered",
        "A skill whose manifest does not match its files.",
        {
            "SKILL.md": _skill_md("tampered", "A skill whose manifest does not match its files.", "# Tampered"),
            "notes.md": "These bytes are not the ones the manifest describes.\n",
        },
        wrong_digest="notes.md",
    ),
)


def _digest(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def entry(skill: Skill) -> dict[str, Any]:
    """The skill's ``Skill`` entry: verbatim frontmatter and the complete manifest."""
    resources = []
    for file, text in skill.files.items():
        listed = text + "(as published)" if file == skill.wrong_digest else text
        resources.append({"uri": skill.uri(file), "digest": _digest(listed), "size": len(text.encode())})
    return {
        "uri": skill.uri(),
        "frontmatter": {"name": skill.name, "description": skill.description},
        "resources": resources,
    }


class GetSkillParams(RequestParams):
    uri: str


async def _list(ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams) -> dict[str, Any]:
    return {"resultType": "complete", "skills": [entry(s) for s in SKILLS], "ttlMs": 300_000, "cacheScope": "public"}


async def _get(ctx: ServerRequestContext[Any, Any], params: GetSkillParams) -> dict[str, Any]:
    skill = next((s for s in SKILLS if s.uri() == params.uri), None)
    if skill is None:
        raise MCPError(INVALID_PARAMS, f"No skill is served at {params.uri}")
    return {"resultType": "complete", "skill": entry(skill), "ttlMs": 300_000, "cacheScope": "public"}


class SkillsExtension(Extension):
    identifier = SKILLS_EXTENSION

    def methods(self) -> list[MethodBinding]:
        return [
            MethodBinding("skills/list", PaginatedRequestParams, _list),
            MethodBinding("skills/get", GetSkillParams, _get),
        ]

    def resources(self) -> list[ResourceBinding]:
        return [
            ResourceBinding(
                TextResource(
                    uri=skill.uri(file),
                    name=skill.name if file == "SKILL.md" else file,
                    description=skill.description if file == "SKILL.md" else None,
                    mime_type="text/markdown" if file.endswith(".md") else "text/plain",
                    text=text,
                )
            )
            for skill in SKILLS
            for file, text in skill.files.items()
        ]
