"""A skill imported from a tool server keeps its origin (server and URI): listed, shown to the model in
the catalog and by activate_skill, dropped when an archive replaces it or the skill is removed."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path
from types import SimpleNamespace
from typing import cast

from runtime.skills.catalog import available_skills_block, list_skills
from runtime.tools.base import ToolContext
from runtime.tools.skills import activate_skill
from tests.support.rigs import StateRig

SKILL = "---\nname: greeting\ndescription: Greet warmly.\n---\n# Greeting\nSay hello.\n"
ORIGIN = {"server": "docs", "uri": "skill://greeting/SKILL.md"}


def _tar(files: dict[str, str], where: Path) -> str:
    """A tar as the worker packs a server's skill, stored as the host stores an upload."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.USTAR_FORMAT) as tf:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    where.write_bytes(buffer.getvalue())
    return str(where)


async def test_the_origin_is_kept_listed_told_and_dropped(rig: StateRig, tmp_path: Path) -> None:
    path = _tar({"greeting/SKILL.md": SKILL, "greeting/notes.md": "n"}, tmp_path / "h1.tar")
    report = await rig.result("skill_import", filename="greeting.tar", path=path, origin=ORIGIN)
    assert report["state"] == "ok"
    assert rig.host.flushes[-1]["paths"] == [".agents/skills/greeting", ".agents/skills/origins.json"]
    (listed,) = (await rig.result("skills_list"))["skills"]
    assert listed["origin"] == ORIGIN
    assert (await rig.result("skill_show", name="greeting"))["origin"] == ORIGIN

    block = available_skills_block(list_skills(rig.workspace))
    assert "<origin>the tool server 'docs' (skill://greeting/SKILL.md)</origin>" in block
    activated = activate_skill.func(cast(ToolContext, SimpleNamespace(workspace=rig.workspace)), name="greeting")
    assert "from the tool server &#x27;docs&#x27; (skill://greeting/SKILL.md)" in activated

    # The person's own archive over it: the skill is theirs now.
    again = await rig.result("skill_import", filename="greeting.tar", path=path, replace=True)
    assert again["skills"][0]["status"] == "replaced"
    assert (await rig.result("skills_list"))["skills"][0]["origin"] is None
    assert "<origin>" not in available_skills_block(list_skills(rig.workspace))

    await rig.result("skill_import", filename="greeting.tar", path=path, replace=True, origin=ORIGIN)
    assert (await rig.result("skills_list"))["skills"][0]["origin"] == ORIGIN
    await rig.result("skill_remove", name="greeting")
    assert rig.host.flushes[-1]["paths"][-1] == ".agents/skills/origins.json"
    await rig.result("skill_import", filename="greeting.tar", path=path)  # back, as the person's own
    assert (await rig.result("skills_list"))["skills"][0]["origin"] is None


async def test_a_bad_origin_is_refused_before_anything_is_written(rig: StateRig, tmp_path: Path) -> None:
    path = _tar({"greeting/SKILL.md": SKILL}, tmp_path / "h1.tar")
    for origin in ({"server": "", "uri": "skill://x/SKILL.md"}, {"server": "docs"}, "docs"):
        reply = await rig.request("skill_import", filename="greeting.tar", path=path, origin=origin)
        assert reply["ok"] is False and reply["error"]["code"] == "bad_params", reply
    assert (await rig.result("skills_list"))["skills"] == []
