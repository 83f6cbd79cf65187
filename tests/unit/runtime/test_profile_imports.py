"""Agent profiles in a skill archive (``skill_import``): a Claude Code plugin repository's ``agents/*.md``
and a workspace-style ``.agents/agents/*.md`` install beside the skills and are in the import report;
files inside a skill's folder stay the skill's, a file that is no profile is skipped with why, and an
existing profile is replaced only when confirmed."""

from __future__ import annotations

import io
import tarfile
import zipfile
from pathlib import Path

from tests.support.rigs import StateRig

SKILL = "---\nname: tea\ndescription: Brew tea well.\n---\n# Tea\n"
REVIEWER = "---\nname: code-reviewer\ndescription: Reviews code.\ntools: Read, Grep, Bash\n---\nReview it.\n"
PLANNER = "---\nname: planner\ndescription: Plans work.\n---\nPlan it.\n"


def _zip(files: dict[str, str], where: Path) -> str:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, text in files.items():
            zf.writestr(name, text)
    where.write_bytes(buffer.getvalue())
    return str(where)


def _tar_gz(files: dict[str, str], where: Path) -> str:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tf:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    where.write_bytes(buffer.getvalue())
    return str(where)


async def test_a_plugin_repository_installs_its_skills_and_agents(rig: StateRig, tmp_path: Path) -> None:
    files = {
        "repo-main/skills/tea/SKILL.md": SKILL,
        "repo-main/skills/tea/agents/helper.md": PLANNER.replace("planner", "helper"),  # the skill's own file
        "repo-main/plugins/review/agents/code-reviewer.md": REVIEWER,
        "repo-main/.agents/agents/planner.md": PLANNER,
        "repo-main/agents/README.md": "# Agents\n",
        "repo-main/agents/broken.md": "no frontmatter",
    }
    report = await rig.result("skill_import", filename="repo.zip", path=_zip(files, tmp_path / "u1.zip"))
    assert [s["name"] for s in report["skills"]] == ["tea"]
    agents = {a["path"]: a for a in report["agents"]}
    assert set(agents) == {
        "repo-main/plugins/review/agents/code-reviewer.md",
        "repo-main/.agents/agents/planner.md",
        "repo-main/agents/broken.md",
    }
    reviewer = agents["repo-main/plugins/review/agents/code-reviewer.md"]
    assert (reviewer["status"], reviewer["location"]) == ("installed", ".agents/agents/code-reviewer.md")
    assert any("Bash" in w for w in reviewer["warnings"])
    broken = agents["repo-main/agents/broken.md"]
    assert broken["status"] == "skipped" and "no frontmatter" in broken["message"]
    assert report["state"] == "partial" and "1 skill(s) and 2 agent profile(s)" in report["message"]
    assert (rig.workspace / ".agents/agents/code-reviewer.md").read_text() == REVIEWER  # kept as written
    assert rig.host.flushes[-1]["paths"] == [
        ".agents/skills/tea",
        ".agents/agents/code-reviewer.md",
        ".agents/agents/planner.md",
    ]
    listed = await rig.result("agents_list")
    assert {"code-reviewer", "planner"} <= {a["name"] for a in listed["agents"]}


async def test_an_archive_of_agents_only_and_replacing_one(rig: StateRig, tmp_path: Path) -> None:
    path = _tar_gz({"agents/planner.md": PLANNER}, tmp_path / "u2.tar.gz")
    report = await rig.result("skill_import", filename="agents.tar.gz", path=path)
    assert report["state"] == "ok" and report["skills"] == []
    assert report["agents"][0]["status"] == "installed"
    again = await rig.result("skill_import", filename="agents.tar.gz", path=path)
    assert again["state"] == "rejected" and again["needs_confirmation"] is True
    assert again["agents"][0]["status"] == "exists"
    replaced = await rig.result("skill_import", filename="agents.tar.gz", path=path, replace=True)
    assert replaced["agents"][0]["status"] == "replaced" and replaced["state"] == "ok"


async def test_an_archive_with_neither_is_still_rejected(rig: StateRig, tmp_path: Path) -> None:
    report = await rig.result("skill_import", filename="x.zip", path=_zip({"notes/a.md": "hi"}, tmp_path / "u3.zip"))
    assert (report["state"], report["reason"], report["agents"]) == ("rejected", "no-skill", [])
