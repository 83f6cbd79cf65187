"""The hostile corpus: one archive per rule, each refused with its reason and nothing written.

Every case runs twice: through ``extract`` into a new folder, and through ``import_archive`` into a
workspace that already holds an installed skill; the workspace must hash the same before and after.
"""

from __future__ import annotations

import gzip
import random
import struct
import tracemalloc
from pathlib import Path
from typing import get_args

import pytest

from runtime.skills.archive import ArchiveError, Limits, extract, read_archive
from runtime.skills.errors import ArchiveReason
from runtime.skills.importer import import_archive
from tests.skill_archives import ARCHIVES
from tests.unit.skills.support import (
    Item,
    make_tar,
    make_zip,
    skill_md,
    tree_fingerprint,
    zip_encrypted_flag,
    zip_with_nul,
)

KNOWN_REASONS = {*get_args(ArchiveReason), "no-skill", "no-valid-skill"}
GOOD = Item("evil/SKILL.md", skill_md("evil"))
ZEROS = b"\x00" * (2 * 1024 * 1024)
SMALL = Limits(max_entries=5, max_file_bytes=1000, max_total_bytes=3000)


def _truncated(data: bytes, keep: float) -> bytes:
    return data[: int(len(data) * keep)]


def _flip_data(data: bytes) -> bytes:
    """Corrupt a stored zip entry's contents so its CRC no longer matches."""
    raw = bytearray(data)
    pos = raw.find(b"payload-payload")
    raw[pos] ^= 0xFF
    return bytes(raw)


HOSTILE = [
    # names
    pytest.param(make_zip([Item("/abs/SKILL.md", skill_md("abs"))]), "a.zip", None, "absolute-path", id="zip-absolute"),
    pytest.param(
        make_tar([Item("/abs/SKILL.md", skill_md("abs"))], gz=True), "a.tgz", None, "absolute-path", id="tgz-absolute"
    ),
    pytest.param(make_zip([GOOD, Item("evil/../../x.md", b"x")]), "a.zip", None, "parent-reference", id="zip-dotdot"),
    pytest.param(make_tar([GOOD, Item("../outside.md", b"x")]), "a.tar", None, "parent-reference", id="tar-dotdot"),
    pytest.param(make_zip([GOOD, Item("evil\\..\\x.md", b"x")]), "a.zip", None, "backslash", id="zip-backslash"),
    pytest.param(
        make_tar([GOOD, Item("evil\\x.md", b"x")], gz=True), "a.tar.gz", None, "backslash", id="tgz-backslash"
    ),
    pytest.param(make_zip([GOOD, Item("C:/Windows/x.md", b"x")]), "a.zip", None, "drive-letter", id="zip-drive"),
    pytest.param(make_tar([GOOD, Item("c:evil.md", b"x")]), "a.tar", None, "drive-letter", id="tar-drive"),
    pytest.param(zip_with_nul("evil/SKILL.mdX.sh"), "a.zip", None, "nul-byte", id="zip-nul"),
    pytest.param(
        make_tar([GOOD, Item("evil/x.md", b"x", pax={"path": "evil/a\x00b.md"})]),
        "a.tar",
        None,
        "nul-byte",
        id="tar-nul",
    ),
    pytest.param(make_zip([GOOD, Item("evil/bell\x07.md", b"x")]), "a.zip", None, "bad-name", id="zip-control-char"),
    pytest.param(
        make_tar([GOOD, Item("evil/" + "n" * 256, b"x")]), "a.tar", None, "path-too-long", id="tar-name-part-too-long"
    ),
    pytest.param(
        make_zip([GOOD, Item("evil/" + "d/" * 40 + "x.md", b"x")]), "a.zip", None, "path-too-long", id="zip-too-deep"
    ),
    pytest.param(
        make_zip([GOOD, Item("evil/invoice\u202efdp.md", b"x")]), "a.zip", None, "bidi-control", id="zip-bidi-override"
    ),
    pytest.param(
        make_tar([GOOD, Item("evil/\u2067x\u2069.md", b"x")]), "a.tar", None, "bidi-control", id="tar-bidi-isolate"
    ),
    pytest.param(
        make_zip([GOOD, Item("evil/A.md", b"1"), Item("evil/a.md", b"2")]),
        "a.zip",
        None,
        "name-collision",
        id="zip-case-collision",
    ),
    pytest.param(
        make_tar([GOOD, Item("evil/Docs/x.md", b"1"), Item("evil/docs/y.md", b"2")], gz=True),
        "a.tgz",
        None,
        "name-collision",
        id="tgz-folder-case-collision",
    ),
    pytest.param(
        make_zip([GOOD, Item("evil/caf\u00e9.md", b"1"), Item("evil/cafe\u0301.md", b"2")]),
        "a.zip",
        None,
        "name-collision",
        id="zip-nfc-nfd-collision",
    ),
    pytest.param(
        make_tar([GOOD, Item("evil/STRASSE.md", b"1"), Item("evil/stra\u00dfe.md", b"2")]),
        "a.tar",
        None,
        "name-collision",
        id="tar-casefold-collision",
    ),
    # entry types
    pytest.param(
        make_tar([GOOD, Item("evil/link", type="symlink", target="/etc/passwd")]),
        "a.tar",
        None,
        "symlink",
        id="tar-symlink",
    ),
    pytest.param(
        make_zip([GOOD, Item("evil/link", type="symlink", target="../../x")]),
        "a.zip",
        None,
        "symlink",
        id="zip-symlink",
    ),
    pytest.param(
        make_tar([GOOD, Item("evil/hard", type="hardlink", target="evil/SKILL.md")], gz=True),
        "a.tgz",
        None,
        "hard-link",
        id="tgz-hardlink",
    ),
    pytest.param(make_tar([GOOD, Item("evil/tty", type="chr")]), "a.tar", None, "special-file", id="tar-chardev"),
    pytest.param(make_tar([GOOD, Item("evil/disk", type="blk")]), "a.tar", None, "special-file", id="tar-blockdev"),
    pytest.param(make_tar([GOOD, Item("evil/pipe", type="fifo")]), "a.tar", None, "special-file", id="tar-fifo"),
    pytest.param(make_zip([GOOD, Item("evil/pipe", type="fifo")]), "a.zip", None, "special-file", id="zip-fifo"),
    pytest.param(zip_encrypted_flag([GOOD]), "a.zip", None, "encrypted", id="zip-encrypted"),
    pytest.param(
        make_zip([GOOD, Item("evil/a.md", b"1"), Item("evil/a.md", b"2")]),
        "a.zip",
        None,
        "duplicate-entry",
        id="zip-duplicate",
    ),
    pytest.param(
        make_tar([GOOD, Item("evil/a", b"1"), Item("evil/a/b.md", b"2")]),
        "a.tar",
        None,
        "path-conflict",
        id="tar-file-and-folder",
    ),
    # limits
    pytest.param(
        make_zip([GOOD, *(Item(f"evil/{i}.md", b"x") for i in range(5))]),
        "a.zip",
        SMALL,
        "too-many-entries",
        id="zip-too-many-entries",
    ),
    pytest.param(
        make_tar([GOOD, *(Item(f"evil/{i}.md", b"x") for i in range(5))], gz=True),
        "a.tgz",
        SMALL,
        "too-many-entries",
        id="tgz-too-many-entries",
    ),
    pytest.param(
        make_tar([GOOD, Item("evil/big.bin", b"b" * 1001)]), "a.tar", SMALL, "file-too-large", id="tar-file-too-big"
    ),
    pytest.param(
        make_zip([GOOD, Item("evil/big.bin", b"b" * 1001)]), "a.zip", SMALL, "file-too-large", id="zip-file-too-big"
    ),
    pytest.param(
        make_zip([GOOD, *(Item(f"evil/{i}.bin", b"t" * 900) for i in range(4))]),
        "a.zip",
        SMALL,
        "total-too-large",
        id="zip-total-too-big",
    ),
    pytest.param(
        make_tar([GOOD, *(Item(f"evil/{i}.bin", b"t" * 900) for i in range(4))]),
        "a.tar",
        SMALL,
        "total-too-large",
        id="tar-total-too-big",
    ),
    pytest.param(
        make_zip([GOOD, Item("evil/zeros.bin", ZEROS)]), "bomb.zip", None, "compression-ratio", id="zip-ratio-bomb"
    ),
    pytest.param(
        make_tar([GOOD, Item("evil/zeros.bin", ZEROS)], gz=True),
        "bomb.tgz",
        None,
        "compression-ratio",
        id="tgz-ratio-bomb",
    ),
    pytest.param(
        make_zip([GOOD, Item("evil/pad.txt", bytes(2000))], compression=0),
        "a.zip",
        Limits(max_archive_bytes=2000),
        "archive-too-large",
        id="archive-too-large",
    ),
    # damaged input
    pytest.param(
        _truncated(make_zip([GOOD, Item("evil/a.md", b"a" * 500)]), 0.6), "a.zip", None, "corrupt", id="zip-truncated"
    ),
    pytest.param(
        _truncated(make_tar([GOOD, Item("evil/a.md", bytes(range(256)) * 40)], gz=True), 0.5),
        "a.tgz",
        None,
        "corrupt",
        id="tgz-truncated",
    ),
    pytest.param(
        make_tar([GOOD, Item("evil/a.md", b"a" * 2000)])[:1700], "a.tar", None, "corrupt", id="tar-truncated-in-data"
    ),
    pytest.param(
        make_tar([GOOD, Item("evil/a.md", b"a" * 100)])[: 2048 + 200],
        "a.tar",
        None,
        "corrupt",
        id="tar-truncated-in-header",
    ),
    pytest.param(make_tar([GOOD])[:1024], "a.tar", None, "corrupt", id="tar-without-end-marker"),
    pytest.param(
        _flip_data(make_zip([GOOD, Item("evil/p.txt", b"payload-payload")], compression=0)),
        "a.zip",
        None,
        "corrupt",
        id="zip-bad-crc",
    ),
    pytest.param(b"PK\x03\x04" + b"\x00" * 200, "a.zip", None, "corrupt", id="zip-garbage-after-magic"),
    pytest.param(b"\x1f\x8b\x08\x00garbage-not-deflate", "a.tgz", None, "corrupt", id="gzip-garbage"),
    pytest.param(b"this is not an archive at all", "skills.zip", None, "unknown-format", id="text-named-zip"),
    pytest.param(b"", "empty.tar.gz", None, "unknown-format", id="empty-file"),
]


@pytest.mark.parametrize(("data", "filename", "limits", "reason"), HOSTILE)
def test_extract_refuses_and_writes_nothing(
    tmp_path: Path, data: bytes, filename: str, limits: Limits | None, reason: str
) -> None:
    (tmp_path / "keep.txt").write_text("kept\n")
    before = tree_fingerprint(tmp_path)
    with pytest.raises(ArchiveError) as caught:
        extract(data, tmp_path / "out" / "skills", filename=filename, limits=limits)
    assert caught.value.reason == reason, caught.value
    assert caught.value.message
    assert tree_fingerprint(tmp_path) == before


@pytest.mark.parametrize(("data", "filename", "limits", "reason"), HOSTILE)
def test_import_rejects_and_leaves_workspace_unchanged(
    populated: Path, data: bytes, filename: str, limits: Limits | None, reason: str
) -> None:
    before = tree_fingerprint(populated)
    report = import_archive(data, populated, filename=filename, limits=limits, replace=True)
    assert (report.state, report.reason) == ("rejected", reason)
    assert report.skills == ()
    assert tree_fingerprint(populated) == before


SKILL_LEVEL = [
    pytest.param(make_zip([Item("docs/README.md", b"# just docs\n")]), "no-skill", [], id="no-skill-md"),
    pytest.param(make_zip([Item("skill/skill.md", skill_md("skill"))]), "no-skill", [], id="lowercase-skill-md"),
    pytest.param(
        make_zip([Item("plain/SKILL.md", b"# Plain\nNo frontmatter here.\n")]),
        "no-valid-skill",
        ["no-frontmatter"],
        id="no-frontmatter",
    ),
    pytest.param(
        make_tar([Item("open/SKILL.md", b"---\nname: open\ndescription: never closed\n")]),
        "no-valid-skill",
        ["bad-frontmatter"],
        id="unterminated-frontmatter",
    ),
    pytest.param(
        make_zip([Item("a/SKILL.md", b"---\nname: a\n---\nbody\n"), Item("_/SKILL.md", skill_md("'--'"))]),
        "no-valid-skill",
        ["missing-description", "invalid-name"],
        id="every-skill-invalid",
    ),
    pytest.param(make_zip([Item("bin/SKILL.md", b"\xff\xfe---\n")]), "no-valid-skill", ["not-text"], id="not-utf8"),
]


@pytest.mark.parametrize(("data", "reason", "skill_reasons"), SKILL_LEVEL)
def test_archives_without_a_valid_skill_are_rejected(
    populated: Path, data: bytes, reason: str, skill_reasons: list[str]
) -> None:
    before = tree_fingerprint(populated)
    report = import_archive(data, populated, filename="x.zip")
    assert (report.state, report.reason) == ("rejected", reason)
    assert [s.reason for s in report.skills] == skill_reasons
    assert all(s.status == "skipped" for s in report.skills)
    assert tree_fingerprint(populated) == before


def test_rejected_import_into_an_empty_workspace_creates_no_folders(workspace: Path) -> None:
    before = tree_fingerprint(workspace)
    report = import_archive(make_zip([Item("x/SKILL.md", b"no frontmatter")]), workspace, filename="x.zip")
    assert report.state == "rejected"
    assert not (workspace / ".agents").exists()
    assert tree_fingerprint(workspace) == before


ACCEPTED = [
    pytest.param(
        make_tar([Item("./", type="dir"), Item("./ok/SKILL.md", skill_md("ok"))]),
        "ok.tar",
        ["ok/SKILL.md"],
        id="tar-dot-slash-prefix",
    ),
    pytest.param(
        make_zip([Item("ok//docs/./a.md", b"a"), Item("ok/SKILL.md", skill_md("ok"))]),
        "ok.zip",
        ["ok/docs/a.md", "ok/SKILL.md"],
        id="zip-redundant-separators",
    ),
    pytest.param(
        make_zip([Item("ok", type="dir"), Item("ok/SKILL.md", skill_md("ok"))]),
        "ok.zip",
        ["ok/SKILL.md"],
        id="zip-explicit-directory",
    ),
    pytest.param(
        make_zip([Item("ok/z.txt", b"z" * 5000), Item("ok/SKILL.md", skill_md("ok"))]),
        "ok.zip",
        ["ok/z.txt", "ok/SKILL.md"],
        id="small-file-high-ratio-under-floor",
    ),
    pytest.param(
        make_tar([Item("ok/SKILL.md", skill_md("ok"))], gz=True),
        "misnamed.zip",
        ["ok/SKILL.md"],
        id="format-from-magic-not-name",
    ),
]


def test_many_tiny_files_are_not_taken_for_a_bomb() -> None:
    """A tar stream of empty files is all headers and compresses past 100:1; the files' contents do not."""
    items = [Item(f"repo/skills/s/refs/{i:05d}.md") for i in range(3000)]
    data = make_tar([Item("repo/skills/s/SKILL.md", skill_md("s")), *items], gz=True)
    assert len(gzip.decompress(data)) > 100 * len(data)
    assert len(read_archive(data, filename="repo.tgz").entries) == 3001


@pytest.mark.parametrize(("data", "filename", "files"), ACCEPTED)
def test_benign_oddities_are_accepted(data: bytes, filename: str, files: list[str]) -> None:
    archive = read_archive(data, filename=filename)
    assert list(archive.files()) == files


def test_extract_writes_every_file_and_no_staging_is_left(tmp_path: Path) -> None:
    data = make_tar([Item("s/SKILL.md", skill_md("s")), Item("s/empty", type="dir"), Item("s/a/b.bin", b"\x00\x01")])
    extract(data, tmp_path / "dest", filename="s.tar")
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == [
        "dest",
        "dest/s",
        "dest/s/SKILL.md",
        "dest/s/a",
        "dest/s/a/b.bin",
        "dest/s/empty",
    ]
    assert (tmp_path / "dest/s/a/b.bin").read_bytes() == b"\x00\x01"


def test_extract_refuses_an_existing_destination(tmp_path: Path) -> None:
    (tmp_path / "dest").mkdir()
    (tmp_path / "dest" / "mine.txt").write_text("mine")
    before = tree_fingerprint(tmp_path)
    with pytest.raises(ArchiveError) as caught:
        extract(make_zip([Item("a.txt", b"a")]), tmp_path / "dest")
    assert caught.value.reason == "destination-exists"
    assert tree_fingerprint(tmp_path) == before


@pytest.mark.parametrize("fixture", ["brand-guidelines.zip", "theme-factory.tar.gz"])
def test_damaged_real_archives_are_refused_cleanly(tmp_path: Path, fixture: str) -> None:
    """Seeded truncations and byte flips: every outcome is a report, never an exception."""
    rng = random.Random(fixture)
    original = ARCHIVES[fixture].data
    states: set[str] = set()
    for n in range(150):
        data = bytearray(original)
        if n % 3 == 0:
            data = data[: rng.randrange(len(data))]
        else:
            for _ in range(rng.randint(1, 8)):
                data[rng.randrange(len(data))] = rng.randrange(256)
        report = import_archive(bytes(data), tmp_path / f"ws{n}", filename=fixture)
        states.add(report.state)
        assert report.state == "ok" or report.reason in KNOWN_REASONS, report
        if report.state == "rejected":
            assert not (tmp_path / f"ws{n}").exists()
    assert "rejected" in states


def zip_with_directory(entries: int, declared: int | None = None, zip64_declared: int | None = None) -> bytes:
    """A one-file zip whose central directory repeats its one header ``entries`` times.

    The end record declares ``declared`` entries (default: the real count, capped at 65,535); with
    ``zip64_declared`` a ZIP64 end record and locator declaring that many come before it.
    """
    one = make_zip([Item("s/SKILL.md", skill_md("s"))], compression=0)
    eocd = one.rfind(b"PK\x05\x06")
    cd_size, cd_offset = struct.unpack_from("<II", one, eocd + 12)
    header = one[cd_offset : cd_offset + cd_size]
    directory = header * entries
    end_offset = cd_offset + len(directory)
    count = min(entries, 0xFFFF) if declared is None else declared
    zip64 = b""
    if zip64_declared is not None:
        record = struct.pack(
            "<4sQHHIIQQQQ", b"PK\x06\x06", 44, 45, 45, 0, 0, zip64_declared, zip64_declared, len(directory), cd_offset
        )
        locator = struct.pack("<4sIQI", b"PK\x06\x07", 0, end_offset, 1)
        zip64 = record + locator
        count = 0xFFFF
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, count, count, len(directory), cd_offset, 0)
    return one[:cd_offset] + directory + zip64 + end


@pytest.mark.parametrize(
    ("data", "what"),
    [
        pytest.param(zip_with_directory(200_000), "a directory of 200,000 entries", id="honest-count"),
        pytest.param(zip_with_directory(200_000, declared=1), "a count of 1 over 200,000 headers", id="lying-count"),
        pytest.param(zip_with_directory(3, zip64_declared=10**9), "a ZIP64 count of a billion", id="zip64-count"),
    ],
)
def test_the_entry_count_is_refused_before_the_directory_is_parsed(data: bytes, what: str) -> None:
    """zipfile would build an object per central header (hundreds of MiB); the limit must come first."""
    assert len(data) < Limits().max_archive_bytes, what
    tracemalloc.start()
    try:
        with pytest.raises(ArchiveError) as refused:
            read_archive(data, filename="many.zip")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert refused.value.reason == "too-many-entries", what
    assert peak < 2 * 1024 * 1024, f"{what}: {peak:,} bytes allocated before refusing"


def test_a_zip_at_the_entry_limit_still_reads() -> None:
    data = zip_with_directory(1)
    assert list(read_archive(data, filename="one.zip").files()) == ["s/SKILL.md"]
