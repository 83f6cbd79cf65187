"""activate_skill: load an installed skill's instructions (progressive disclosure, effect ``read``).

The system prompt lists only each skill's name and description; this returns the body of its SKILL.md
and the files next to it, which the model then reads on demand with ``read_file``.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Annotated

from runtime.host.workspace_fetch import SKILLS_DIR
from runtime.tools.base import JSONSchema, ToolContext, ToolDefinition, ToolError, tool
from runtime.tools.traits import Walk
from runtime.tools.untrusted import wrap_untrusted


def _installed_names(workspace: Path) -> JSONSchema | None:
    """activate_skill's parameters with the enabled skills' names as an enum; None when there are none."""
    from runtime.skills.catalog import list_skills

    names = [s.name for s in list_skills(workspace) if s.enabled]
    if not names:
        return None
    parameters = copy.deepcopy(activate_skill.parameters)
    parameters["properties"]["name"]["enum"] = names
    return parameters


@tool("read", parameters_for=_installed_names, walks=Walk(top=SKILLS_DIR))  # the catalog reads every skill
def activate_skill(ctx: ToolContext, name: Annotated[str, "The skill's name, as listed in <available_skills>"]) -> str:
    """Load an installed skill's instructions and the list of its files; follow them for the task at hand."""
    from runtime.skills.catalog import activate
    from runtime.skills.errors import SkillError

    try:
        skill = activate(ctx.workspace, name)
    except SkillError as exc:
        raise ToolError(exc.message) from None
    files = "\n".join(f"- {skill.root}/{f}" for f in skill.files) or "(none)"
    where = f"{skill.root}/SKILL.md" + (f", from {skill.origin.describe()}" if skill.origin else "")
    body = wrap_untrusted(
        f'<skill name="{skill.name}" root="{skill.root}">\n{skill.body.strip()}\n</skill>',
        where,
        "skill",
    )
    return f"{body}\n\nFiles of this skill (read them with read_file when the instructions call for them):\n{files}"


TOOLS: tuple[ToolDefinition, ...] = (activate_skill,)
