"""Hostile SKILL.md frontmatter is refused in bounded time, through every path that reads one.

Times are CPU times of this process (``time.process_time``, so other load on the machine does not count),
compared with reading a benign frontmatter near the size cap in the same test: the hostile input may cost
a few times that, where before these fixes it cost hundreds to thousands of times more (60,000 keys:
55 s; a 32 KB line of spaces in the key-by-key reading: 1.8 s; grouping an archive of 4,000 skills: 18 s).
"""

from __future__ import annotations

import io
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from runtime.skills import frontmatter
from runtime.skills.archive import read_archive
from runtime.skills.catalog import list_skills, skipped_skills
from runtime.skills.importer import find_skill_roots, import_archive, skill_entries
from runtime.skills.scan import ScanResult, scan_skill
from runtime.skills.spec import InvalidSkill, SkillCheck, ValidSkill, check_skill
from tests.skill_archives import ARCHIVES, many_keys_skill, many_keys_skill_md
from tests.unit.skills.support import tree_fingerprint

CAP = frontmatter.MAX_BYTES
HEAD = "name: pdf\ndescription: Reads PDFs.\n"


def md(front: str) -> str:
    return f"---\n{front}---\n# Body\n"


def benign_near_cap() -> str:
    """A valid frontmatter just under 64 KiB with a realistic shape: long description, 560 metadata keys."""
    description = "Reads PDFs, fills forms and merges documents when the user asks for it. " * 13
    entries = "".join(f"  key-{i}: {'value text ' * 9}\n" for i in range(560))
    front = f"name: pdf\ndescription: {description}\nmetadata:\n{entries}"
    assert CAP - 4096 < len(front.encode()) <= CAP
    return md(front)


def cpu(fn: Callable[[], object], runs: int = 3) -> float:
    """The least CPU time of ``runs`` calls (the least is the one least disturbed)."""
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


@pytest.fixture(scope="module")
def baseline() -> float:
    text = benign_near_cap()
    result = check_skill(text, "pdf")
    assert isinstance(result, ValidSkill), result
    return max(cpu(lambda: check_skill(text, "pdf")), 0.005)  # a floor against a clock's granularity


HOSTILE = [
    pytest.param(many_keys_skill_md(keys=60_000).decode(), "runs past the limit of 64 KiB", id="60k-keys"),
    pytest.param(many_keys_skill_md(keys=100_000).decode(), "runs past the limit of 64 KiB", id="100k-keys"),
    pytest.param(md(f"{HEAD}license: {'x' * (5 * 1024 * 1024)}\n"), "runs past the limit of 64 KiB", id="5mib-scalar"),
    pytest.param(f"---\n{HEAD}{'x' * (5 * 1024 * 1024)}", "runs past the limit of 64 KiB", id="unterminated-5mib"),
    pytest.param(
        md(HEAD + "".join(f"k{i}: v\n" for i in range(6_000))), "more than the limit of 2,000 keys", id="6k-keys-in-cap"
    ),
    pytest.param(
        md(HEAD + "x: a: b\n" + "".join(f"k{i}: v\n" for i in range(6_000))),
        "more than the limit of 2,000 keys",
        id="6k-keys-read-key-by-key",
    ),
    pytest.param(md(HEAD + "metadata: [" + "a, " * 20_000 + "]\n"), "more than the limit of 2,000", id="flow-list"),
    pytest.param(md(HEAD + "--- a\n" * 8_000), "found another document", id="many-documents"),
    pytest.param(md(HEAD + "x: a: b\na" + " " * 60_000 + "b\n"), "is not a top-level 'key: value' line", id="spaces"),
    pytest.param(md("name: pdf\ndescription: " + "é" * (CAP // 2) + "\n"), "bytes, over the limit of", id="utf8"),
]


@pytest.mark.parametrize(("text", "says"), HOSTILE)
def test_hostile_frontmatter_is_refused_clearly_in_bounded_time(text: str, says: str, baseline: float) -> None:
    results: list[SkillCheck] = []
    spent = cpu(lambda: results.append(check_skill(text, "pdf")), runs=1)
    result = results[0]
    assert isinstance(result, InvalidSkill), result
    assert says in result.message
    too_large = "limit of" in says
    assert result.reason == ("frontmatter-too-large" if too_large else "bad-frontmatter")
    assert spent < 10 * baseline, (spent, baseline)


@pytest.mark.parametrize(
    "value",
    [
        pytest.param("[" * 30_000 + "]" * 30_000, id="flow-nesting"),
        pytest.param("".join(f"\n{'  ' * (d + 1)}k{d}:" for d in range(200)) + " x", id="block-nesting"),
    ],
)
def test_deep_nesting_is_read_as_text_in_bounded_time(value: str, baseline: float) -> None:
    text = md(f"{HEAD}metadata: {value}\n")
    results: list[SkillCheck] = []
    spent = cpu(lambda: results.append(check_skill(text, "pdf")), runs=1)
    result = results[0]
    assert isinstance(result, ValidSkill), result
    assert any("nested more than 32 deep" in w.message for w in result.warnings), result.warnings
    assert spent < 10 * baseline, (spent, baseline)


def test_the_caps_are_exact_and_counted_in_utf8_bytes() -> None:
    pad = CAP - len(b"name: pdf\ndescription: \n")
    assert isinstance(check_skill(md(f"name: pdf\ndescription: {'d' * pad}\n"), "pdf"), ValidSkill)
    over = check_skill(md(f"name: pdf\ndescription: {'d' * (pad + 1)}\n"), "pdf")
    assert isinstance(over, InvalidSkill) and over.reason == "frontmatter-too-large"
    assert "the limit of 64 KiB (65,536 bytes)" in over.message
    keys = (frontmatter.MAX_NODES - 1) // 2  # the map itself is one node, each key and value one more
    assert len(frontmatter.parse("".join(f"k{i}: v\n" for i in range(keys))).fields) == keys
    with pytest.raises(frontmatter.FrontmatterError, match="2,000 keys and values"):
        frontmatter.parse("".join(f"k{i}: v\n" for i in range(keys + 1)))


def test_what_works_today_still_works_under_the_caps() -> None:
    parsed = frontmatter.parse("name: pdf\ndescription: Use when: asked # note\nname: again\n")
    assert parsed.fields == {"name": "again", "description": "Use when: asked"}
    assert parsed.repeated == ("name",) and "description" in parsed.as_text
    with pytest.raises(frontmatter.FrontmatterError, match="no closing '---' line"):
        frontmatter.split("---\nname: pdf\n")
    assert frontmatter.split("---\nname: pdf\n---\nbody\n") == ("name: pdf\n", "body\n")
    assert frontmatter.split("\ufeff---\r\nname: pdf\r\n...\r\nbody") == ("name: pdf\n", "body")


def test_a_hostile_skill_imports_nothing_and_the_report_says_rejected(populated: Path, baseline: float) -> None:
    before = tree_fingerprint(populated)
    archive = many_keys_skill()
    reports = []
    spent = cpu(lambda: reports.append(import_archive(archive.data, populated, filename=archive.filename)), runs=1)
    report = reports[0]
    assert (report.state, report.reason) == ("rejected", "no-valid-skill")
    [outcome] = report.skills
    assert (outcome.status, outcome.reason) == ("skipped", "frontmatter-too-large")
    assert "64 KiB" in outcome.message
    assert tree_fingerprint(populated) == before
    assert spent < 20 * baseline, (spent, baseline)


def test_beside_a_good_skill_the_hostile_one_is_skipped_and_the_import_is_partial(workspace: Path) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("hostile/SKILL.md", many_keys_skill_md("hostile"))
        zf.writestr("good/SKILL.md", md("name: good\ndescription: Does a thing.\n"))
    report = import_archive(buf.getvalue(), workspace, filename="two.zip")
    assert report.state == "partial"
    assert {s.name: s.status for s in report.skills} == {"hostile": "skipped", "good": "installed"}
    assert [s.name for s in list_skills(workspace)] == ["good"]
    assert not (workspace / ".agents" / "skills" / "hostile").exists()


def test_a_hostile_skill_already_in_the_workspace_is_skipped_with_why(populated: Path, baseline: float) -> None:
    folder = populated / ".agents" / "skills" / "hostile"
    folder.mkdir()
    (folder / "SKILL.md").write_bytes(many_keys_skill_md("hostile", keys=100_000))
    listed: list[object] = []
    spent = cpu(lambda: listed.append(list_skills(populated)), runs=1)
    assert [s.name for s in list_skills(populated)] == ["brand-guidelines"]
    [skipped] = skipped_skills(populated)
    assert skipped.folder == "hostile" and "runs past the limit of 64 KiB" in skipped.message
    assert spent < 10 * baseline, (spent, baseline)


def test_grouping_many_skills_costs_less_than_reading_their_archive() -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("SKILL.md", md("name: top\ndescription: d\n"))
        for i in range(4_000):
            zf.writestr(f"s{i}/SKILL.md", md(f"name: s{i}\ndescription: d\n"))
    data = buf.getvalue()
    archive = read_archive(data, filename="many.zip")
    roots = find_skill_roots(archive)
    grouped = skill_entries(archive, roots)
    assert len(grouped) == 4_001 and all(len(entries) == 1 for entries in grouped.values())
    reading = cpu(lambda: read_archive(data, filename="many.zip"), runs=1)
    assert cpu(lambda: skill_entries(archive, roots)) < reading


def test_nested_skills_keep_their_own_files() -> None:
    archive = read_archive(ARCHIVES["anthropic-skills-main.zip"].data, filename="repo.zip")
    roots = find_skill_roots(archive)
    grouped = skill_entries(archive, roots)
    for root, entries in grouped.items():
        assert "SKILL.md" in {e.path for e in entries}, root
        inner = [r for r in roots if r != root and r.startswith(f"{root}/" if root else "")]
        assert not any(f"{root}/{e.path}".startswith(f"{r}/") for e in entries for r in inner)


@pytest.mark.parametrize(
    ("source", "kind"),
    [
        pytest.param(b"import os\n" * 120_000, "not-scanned", id="over-1-mib"),
        pytest.param(b"x = " + b"a+" * 100_000 + b"a\n", "syntax-error", id="too-deep-for-the-parser"),
        pytest.param(b"x = " + b"-" * 200_000 + b"a\n", "syntax-error", id="too-deep-for-memory"),
    ],
)
def test_a_hostile_script_is_a_finding_not_a_crash_nor_a_stall(source: bytes, kind: str, baseline: float) -> None:
    found: list[ScanResult] = []
    spent = cpu(lambda: found.append(scan_skill({"SKILL.md": b"x", "scripts/big.py": source})), runs=1)
    assert [f.kind for f in found[0].findings] == [kind]
    assert spent < 10 * baseline, (spent, baseline)
