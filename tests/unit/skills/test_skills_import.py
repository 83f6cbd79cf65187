"""Importing real skill archives and crafted ones: names, layout, reports, replace and rollback."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from runtime.skills.archive import Limits, read_archive
from runtime.skills.importer import archive_stem, import_archive, import_archive_file
from tests.skill_archives import ARCHIVES, HOOKS_SKILL_MD, LOOSE_NAME_SKILL_MD, dot_skill_file, people_skills_zip
from tests.unit.skills.support import Item, make_tar, make_zip, skill_md, tree_fingerprint

REPO_SKILLS = ["internal-comms", "brand-guidelines", "frontend-design", "doc-coauthoring"]


@pytest.mark.parametrize(
    ("fixture", "names"),
    [
        pytest.param("internal-comms.zip", ["internal-comms"], id="internal-comms-zip"),
        pytest.param("brand-guidelines.zip", ["brand-guidelines"], id="brand-guidelines-zip"),
        pytest.param("theme-factory.tar.gz", ["theme-factory"], id="theme-factory-tgz"),
        pytest.param("anthropic-skills-main.zip", REPO_SKILLS, id="whole-repository-zip"),
    ],
)
def test_fixture_archives_import_with_their_skill_names(workspace: Path, fixture: str, names: list[str]) -> None:
    data = ARCHIVES[fixture].data
    report = import_archive(data, workspace, filename=fixture)
    assert report.state == "ok", report
    assert [s.name for s in report.skills] == names
    assert all(s.status == "installed" and s.warnings == () for s in report.skills)
    assert all(s.scan is not None and s.scan.verdict == "instructions-only" for s in report.skills)
    installed = sorted(p.name for p in (workspace / ".agents" / "skills").iterdir())
    assert installed == sorted(names)


def test_installed_files_are_byte_identical_to_the_archive(workspace: Path) -> None:
    data = ARCHIVES["theme-factory.tar.gz"].data
    import_archive(data, workspace, filename="theme-factory.tar.gz")
    files = read_archive(data).files()
    root = workspace / ".agents" / "skills"
    assert files  # the PDF and the themes
    for path, content in files.items():
        assert (root / path).read_bytes() == content, path


def test_repository_archive_leaves_out_what_is_not_a_skill(workspace: Path) -> None:
    import_archive(ARCHIVES["anthropic-skills-main.zip"].data, workspace, filename="x.zip")
    root = workspace / ".agents" / "skills"
    assert not (root / "spec").exists()
    assert sorted(p.relative_to(root / "internal-comms").as_posix() for p in (root / "internal-comms").rglob("*")) == [
        "LICENSE.txt",
        "SKILL.md",
        "examples",
        "examples/3p-updates.md",
        "examples/company-newsletter.md",
        "examples/faq-answers.md",
        "examples/general-comms.md",
    ]
    assert sorted(p.name for p in root.iterdir()) == sorted(REPO_SKILLS)  # no staging or trash left


@pytest.mark.parametrize(
    ("filename", "name", "warnings"),
    [
        pytest.param("my-skill.zip", "my-skill", [], id="archive-name-matches"),
        pytest.param("my-skill.tar.gz", "my-skill", [], id="tar-gz-suffix-stripped"),
        pytest.param("my-skill-v2.zip", "my-skill", ["name-mismatch"], id="archive-name-differs-warns"),
    ],
)
def test_skill_at_archive_root_uses_the_archive_name(
    workspace: Path, filename: str, name: str, warnings: list[str]
) -> None:
    data = make_zip([Item("SKILL.md", skill_md("my-skill")), Item("scripts/run.py", b"import json\n")])
    report = import_archive(data, workspace, filename=filename)
    assert report.state == "ok"
    (skill,) = report.skills
    assert (skill.folder, skill.name, [w.code for w in skill.warnings]) == ("", name, warnings)
    assert skill.location == f".agents/skills/{name}"
    assert (workspace / ".agents/skills/my-skill/scripts/run.py").read_bytes() == b"import json\n"
    assert skill.scan is not None and skill.scan.verdict == "runnable"


def test_some_valid_some_not_is_partial(workspace: Path) -> None:
    data = make_zip(
        [
            Item("repo/good/SKILL.md", skill_md("good")),
            Item("repo/bad/SKILL.md", b"no frontmatter"),
            Item("repo/copy/SKILL.md", skill_md("good")),
        ]
    )
    report = import_archive(data, workspace, filename="repo.zip")
    assert report.state == "partial"
    assert [(s.folder, s.status, s.reason) for s in report.skills] == [
        ("repo/good", "installed", ""),
        ("repo/bad", "skipped", "no-frontmatter"),
        ("repo/copy", "skipped", "duplicate-name"),
    ]
    assert sorted(p.name for p in (workspace / ".agents/skills").iterdir()) == ["good"]


def test_nested_skill_is_its_own_skill_and_not_part_of_its_parent(workspace: Path) -> None:
    data = make_tar(
        [
            Item("outer/SKILL.md", skill_md("outer")),
            Item("outer/notes.md", b"n"),
            Item("outer/inner/SKILL.md", skill_md("inner")),
            Item("outer/inner/x.md", b"x"),
        ]
    )
    report = import_archive(data, workspace, filename="outer.tar")
    assert [s.name for s in report.skills] == ["outer", "inner"]
    root = workspace / ".agents/skills"
    assert sorted(p.name for p in (root / "outer").iterdir()) == ["SKILL.md", "notes.md"]
    assert sorted(p.name for p in (root / "inner").iterdir()) == ["SKILL.md", "x.md"]


def test_reimport_needs_confirmation_then_replaces(populated: Path) -> None:
    before = tree_fingerprint(populated)
    original = ARCHIVES["brand-guidelines.zip"].data
    report = import_archive(original, populated, filename="brand-guidelines.zip")
    assert (report.state, report.reason, report.needs_confirmation) == ("rejected", "exists", True)
    assert [(s.status, s.message) for s in report.skills] == [("exists", "exists; confirm to replace")]
    assert tree_fingerprint(populated) == before

    updated = make_zip([Item("brand-guidelines/SKILL.md", skill_md("brand-guidelines", "New version."))])
    report = import_archive(updated, populated, filename="brand-guidelines.zip", replace=True)
    assert report.state == "ok"
    assert [s.status for s in report.skills] == ["replaced"]
    folder = populated / ".agents/skills/brand-guidelines"
    assert sorted(p.name for p in folder.iterdir()) == ["SKILL.md"]  # the old LICENSE.txt is gone
    assert b"New version." in (folder / "SKILL.md").read_bytes()


def test_mixed_new_and_existing_is_partial_and_installs_the_new(populated: Path) -> None:
    data = make_zip(
        [Item("brand-guidelines/SKILL.md", skill_md("brand-guidelines")), Item("n/SKILL.md", skill_md("n"))]
    )
    report = import_archive(data, populated, filename="two.zip")
    assert report.state == "partial"
    assert report.needs_confirmation
    assert [(s.name, s.status) for s in report.skills] == [("brand-guidelines", "exists"), ("n", "installed")]
    assert b"Anthropic" in (populated / ".agents/skills/brand-guidelines/SKILL.md").read_bytes()


def test_failure_while_writing_restores_the_workspace(workspace: Path) -> None:
    (workspace / ".agents").mkdir()
    (workspace / ".agents" / "skills").write_text("a file where the skills folder should be")
    before = tree_fingerprint(workspace)
    report = import_archive(make_zip([Item("n/SKILL.md", skill_md("n"))]), workspace, filename="n.zip")
    assert (report.state, report.reason) == ("rejected", "io-error")
    assert [(s.name, s.status, s.reason) for s in report.skills] == [("n", "skipped", "io-error")]  # not "installed"
    assert tree_fingerprint(workspace) == before


def test_report_serializes_to_plain_json_values(workspace: Path) -> None:
    report = import_archive(ARCHIVES["internal-comms.zip"].data, workspace, filename="internal-comms.zip")
    out = report.to_dict()
    assert out["state"] == "ok"
    assert out["needs_confirmation"] is False
    assert out["skills"][0]["scan"]["verdict"] == "instructions-only"
    assert out["skills"][0]["name"] == "internal-comms"


@pytest.mark.parametrize(
    ("filename", "stem"),
    [
        pytest.param("a.zip", "a", id="zip"),
        pytest.param("A.TGZ", "A", id="tgz-upper"),
        pytest.param("dir/b.tar.gz", "b", id="tar-gz-with-folder"),
        pytest.param("c.tar", "c", id="tar"),
        pytest.param("noext", "noext", id="no-extension"),
    ],
)
def test_archive_stem(filename: str, stem: str) -> None:
    assert archive_stem(filename) == stem


def test_zip_without_unix_modes_imports(workspace: Path) -> None:
    buf_items = [("w/SKILL.md", skill_md("w"))]
    import io

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in buf_items:
            zf.writestr(name, data)  # create_system defaults to this host, external_attr 0
    report = import_archive(buf.getvalue(), workspace, filename="w.zip")
    assert report.state == "ok"


def test_an_archive_stored_as_a_file_imports_like_its_bytes(workspace: Path, tmp_path: Path) -> None:
    archive = ARCHIVES["theme-factory.tar.gz"]
    stored = tmp_path / "incoming" / "h7.tar.gz"
    stored.parent.mkdir()
    stored.write_bytes(archive.data)
    report = import_archive_file(stored, workspace, filename="theme-factory.tar.gz")
    assert report.state == "ok" and [s.name for s in report.skills] == ["theme-factory"]
    assert stored.read_bytes() == archive.data  # the host removes its file, the importer leaves it alone


def test_an_archive_file_over_the_limit_is_refused_by_its_size(workspace: Path, tmp_path: Path) -> None:
    stored = tmp_path / "big.zip"
    stored.write_bytes(ARCHIVES["brand-guidelines.zip"].data)
    report = import_archive_file(stored, workspace, filename="big.zip", limits=Limits(max_archive_bytes=100))
    assert (report.state, report.reason) == ("rejected", "archive-too-large")
    assert str(stored.stat().st_size) in report.message and not (workspace / ".agents").exists()


def test_a_missing_archive_file_is_rejected_with_a_reason(workspace: Path, tmp_path: Path) -> None:
    report = import_archive_file(tmp_path / "gone.zip", workspace, filename="gone.zip")
    assert (report.state, report.reason) == ("rejected", "io-error") and "gone.zip" in report.message


def test_skills_as_people_write_them_are_imported_with_warnings(workspace: Path) -> None:
    archive = people_skills_zip()
    report = import_archive(archive.data, workspace, filename=archive.filename)
    assert report.state == "ok", report
    outcomes = {s.name: s for s in report.skills}
    assert sorted(outcomes) == ["pdf-tools", "safe-deploy"]
    assert [w.code for w in outcomes["pdf-tools"].warnings] == ["invalid-name"]
    assert "'PDF Tools'" in outcomes["pdf-tools"].warnings[0].message
    assert [w.code for w in outcomes["safe-deploy"].warnings] == ["unquoted-colon", "unknown-field"]
    root = workspace / ".agents" / "skills"
    assert (root / "pdf-tools" / "SKILL.md").read_bytes() == LOOSE_NAME_SKILL_MD
    assert (root / "safe-deploy" / "SKILL.md").read_bytes() == HOOKS_SKILL_MD


def test_a_dot_skill_file_is_a_zip_named_after_its_skill(workspace: Path) -> None:
    archive = dot_skill_file()
    report = import_archive(archive.data, workspace, filename=archive.filename)
    assert report.state == "ok", report
    assert [s.name for s in report.skills] == ["meeting-notes"]
    assert archive_stem("meeting-notes.skill") == "meeting-notes"


def test_a_root_skill_md_with_a_loose_name_in_a_dot_skill_file(workspace: Path) -> None:
    data = make_zip([Item("SKILL.md", skill_md("'My Notes!'"))])
    report = import_archive(data, workspace, filename="notes.skill")
    assert [(s.name, s.status, [w.code for w in s.warnings]) for s in report.skills] == [
        ("my-notes", "installed", ["invalid-name"])
    ]
    assert (workspace / ".agents" / "skills" / "my-notes" / "SKILL.md").is_file()


def test_a_file_named_dot_skill_that_is_no_archive_is_refused(workspace: Path) -> None:
    report = import_archive(b"---\nname: x\n---\n", workspace, filename="x.skill")
    assert (report.state, report.reason) == ("rejected", "unknown-format")
    assert not (workspace / ".agents").exists()
