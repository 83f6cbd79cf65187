"""Safe extraction of ``.zip``, ``.tar`` and ``.tar.gz``/``.tgz`` archives from bytes.

Order of work: detect the format from magic bytes, read and check every entry in memory, and only then
write, into a staging folder next to the destination that is renamed into place when complete. Any
failure raises ``ArchiveError`` (``reason`` code + message), removes the staging folder and leaves the
destination's parent exactly as it was.

Refused (reason code): absolute paths (``absolute-path``), ``..`` (``parent-reference``), drive letters
(``drive-letter``), backslashes (``backslash``), NULs (``nul-byte``), other control characters
(``bad-name``); symbolic links (``symlink``), hard links (``hard-link``), devices and FIFOs
(``special-file``), other tar entry types (``unsupported-entry``), encrypted zip entries (``encrypted``),
one path stored twice (``duplicate-entry``) or as both file and folder (``path-conflict``); damaged or
truncated input (``corrupt``) and anything that is not zip, tar or gzip-compressed tar
(``unknown-format``). Link and device entries are refused by this code, not by ``tarfile``'s filters.

Default ``Limits`` (each configurable), sized for a whole repository archive of skills:

- ``max_archive_bytes`` 50 MiB: the archive itself (``archive-too-large``);
- ``max_entries`` 10,000 files and folders (``too-many-entries``);
- ``max_file_bytes`` 10 MiB per file (``file-too-large``);
- ``max_total_bytes`` 50 MiB expanded in all (``total-too-large``);
- ``max_ratio`` 100:1 of the files' contents to the compressed size, per zip entry and per archive,
  enforced once the contents pass ``ratio_floor_bytes`` (1 MiB), because small text files legitimately
  compress far better than 100:1 and are harmless (``compression-ratio``); a gzip stream is also cut off
  once it expands past ``max_total_bytes`` plus room for tar headers (``total-too-large``);
- ``max_path_chars`` 1,024 and ``max_depth`` 32 (``path-too-long``).
"""

from __future__ import annotations

import logging
import os
import secrets
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from runtime.skills.entries import Entry, Limits, check_tree
from runtime.skills.errors import ArchiveError
from runtime.skills.readers import GZIP_MAGIC, check_payload_ratio, gunzip, read_tar, read_zip

__all__ = ["Archive", "ArchiveError", "ArchiveFormat", "Entry", "Limits", "detect_format", "extract", "read_archive"]

log = logging.getLogger(__name__)

ArchiveFormat = Literal["zip", "tar", "tar.gz"]
_ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")
_USTAR_OFFSET = 257


@dataclass(frozen=True)
class Archive:
    """A fully read and checked archive: its format and its entries in archive order."""

    format: ArchiveFormat
    entries: tuple[Entry, ...]

    def files(self) -> dict[str, bytes]:
        return {e.path: e.data for e in self.entries if e.kind == "file"}


def detect_format(data: bytes, filename: str = "") -> ArchiveFormat:
    """The format by magic bytes; the file name only decides for an old-style tar without ``ustar``."""
    if data.startswith(_ZIP_MAGICS):
        return "zip"
    if data.startswith(GZIP_MAGIC):
        return "tar.gz"
    if data[_USTAR_OFFSET : _USTAR_OFFSET + 5] == b"ustar":
        return "tar"
    if filename.lower().endswith(".tar") and data and len(data) % 512 == 0:
        return "tar"
    hint = f" ({filename})" if filename else ""
    raise ArchiveError("unknown-format", f"Not a .zip, .tar or .tar.gz archive{hint}. Choose one of those.")


def read_archive(data: bytes, *, filename: str = "", limits: Limits | None = None) -> Archive:
    """Read and check every entry in memory. Raises ``ArchiveError``; writes nothing."""
    limits = limits or Limits()
    if len(data) > limits.max_archive_bytes:
        raise ArchiveError(
            "archive-too-large", f"The archive is {len(data)} bytes; the limit is {limits.max_archive_bytes}."
        )
    fmt = detect_format(data, filename)
    if fmt == "zip":
        entries = read_zip(data, limits)
    else:
        raw = gunzip(data, limits) if fmt == "tar.gz" else data
        if fmt == "tar.gz" and raw[_USTAR_OFFSET : _USTAR_OFFSET + 5] != b"ustar":
            log.debug("gzip stream of %s has no ustar magic; trying it as an old-style tar", filename or "archive")
        entries = read_tar(raw, limits)
        if fmt == "tar.gz":
            check_payload_ratio(entries, len(data), limits)
    check_tree(entries)
    return Archive(fmt, tuple(entries))


def extract(data: bytes, dest: Path, *, filename: str = "", limits: Limits | None = None) -> Archive:
    """Check the archive, then create ``dest`` (which must not exist) holding its entries."""
    archive = read_archive(data, filename=filename, limits=limits)
    write_tree(archive.entries, dest)
    return archive


def write_tree(entries: tuple[Entry, ...] | list[Entry], dest: Path) -> None:
    """Write entries into a staging folder beside ``dest``, then rename it to ``dest``.

    ``dest`` must not exist. Missing parents are created and, on failure, removed again.
    """
    if dest.exists() or dest.is_symlink():
        raise ArchiveError("destination-exists", f"{dest.name!r} already exists; nothing was written.")
    created = first_missing_ancestor(dest.parent)
    staging = dest.parent / f".{dest.name}.staging-{secrets.token_hex(4)}"
    try:
        staging.mkdir(parents=True)
        for entry in entries:
            target = staging.joinpath(*entry.path.split("/"))
            if entry.kind == "dir":
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(entry.data)
        os.rename(staging, dest)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        if created is not None:
            shutil.rmtree(created, ignore_errors=True)
        raise ArchiveError("io-error", f"Could not write the files ({exc.strerror or exc}); nothing was kept.") from exc


def first_missing_ancestor(path: Path) -> Path | None:
    """The topmost folder of ``path`` that does not exist yet (``None`` when ``path`` exists)."""
    missing: Path | None = None
    while not path.exists():
        missing = path
        if path.parent == path:
            break
        path = path.parent
    return missing
