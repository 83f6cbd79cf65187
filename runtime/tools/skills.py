"""activate_skill: load an installed skill's instructions (progressive disclosure, effect ``read``).

The system prompt lists only each skill's name and description; this returns the body of its SKILL.md
and the files next to it, which the model then reads on demand with ``read_file``.
"""

from __future__ import annotations

from typing import Annotated

from runtime.tools.base import ToolContext, ToolDefinition, ToolError, tool


@tool("read")
def activate_skill(ctx: ToolContext, name: Annotated[str, "The skill's name, as listed in <available_skills>"]) -> str:
    """Load an installed skill's instructions and the list of its files; follow them for the task at hand."""
    from runtime.skills.catalog import activate
    from runtime.skills.errors import SkillError

    try:
        skill = activate(ctx.workspace, name)
    except SkillError as exc:
        raise ToolError(exc.message) from None
    files = "\n".join(f"- {skill.root}/{f}" for f in skill.files) or "(none)"
    return (
        f'<skill name="{skill.name}" root="{skill.root}">\n{skill.body.strip()}\n</skill>\n\n'
        f"Files of this skill (read them with read_file when the instructions call for them):\n{files}"
    )


TOOLS: tuple[ToolDefinition, ...] = (activate_skill,)
