"""Readers for zip, tar and gzip that check every entry against ``Limits`` while holding it in memory.

Nothing here writes to disk. Each reader returns checked ``Entry`` values or raises ``ArchiveError``;
the library's own exceptions for damaged input are turned into ``corrupt``.
"""

from __future__ import annotations

import io
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Iterator

from runtime.skills.entries import Entry, Limits, normalize_path
from runtime.skills.errors import ArchiveError
from runtime.skills.zipcount import declared_entries

GZIP_MAGIC = b"\x1f\x8b"
_TAR_BLOCK = 512
# Bytes a tar stream may spend beyond its files' contents: a header and padding per entry, plus the end.
_TAR_OVERHEAD_PER_ENTRY = 3 * _TAR_BLOCK
_TAR_OVERHEAD_FIXED = 20 * _TAR_BLOCK
_DAMAGED: tuple[type[BaseException], ...] = (
    tarfile.TarError,
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    zlib.error,
    EOFError,
    OSError,
    ValueError,
    NotImplementedError,
    RuntimeError,
    UnicodeError,
    KeyError,
    IndexError,
)


def corrupt(detail: object) -> ArchiveError:
    return ArchiveError("corrupt", f"The archive is damaged or truncated ({detail}). Download it again.")


def _check_size(path: str, size: int, total: int, limits: Limits) -> None:
    if size > limits.max_file_bytes:
        raise ArchiveError(
            "file-too-large", f"{path!r} is {size} bytes; the limit is {limits.max_file_bytes}.", path=path
        )
    if total > limits.max_total_bytes:
        raise ArchiveError("total-too-large", f"The archive expands past {limits.max_total_bytes} bytes.", path=path)


def _count(count: int, limits: Limits) -> None:
    if count > limits.max_entries:
        raise ArchiveError("too-many-entries", f"The archive has more than {limits.max_entries} entries.")


# --- gzip ---------------------------------------------------------------------------------------------


def gunzip(data: bytes, limits: Limits) -> bytes:
    """Decompress one or more gzip members, refusing output past what the limits allow a tar stream.

    The ratio is judged later on the files' contents (``check_payload_ratio``): a tar stream of many tiny
    files is mostly headers and padding, which compress close to 100:1 on their own.
    """
    cap = limits.max_total_bytes + limits.max_entries * _TAR_OVERHEAD_PER_ENTRY + _TAR_OVERHEAD_FIXED
    out = bytearray()
    rest = data
    try:
        while True:
            member = zlib.decompressobj(16 + zlib.MAX_WBITS)
            pending = rest
            while not member.eof:
                if not pending:
                    raise corrupt("gzip stream ends early")
                out += member.decompress(pending, cap + 1 - len(out))
                if len(out) > cap:
                    raise ArchiveError("total-too-large", f"The archive expands past {limits.max_total_bytes} bytes.")
                pending = member.unconsumed_tail
            rest = member.unused_data
            if not rest.strip(b"\x00"):
                return bytes(out)
            if not rest.startswith(GZIP_MAGIC):
                raise corrupt("unexpected bytes after the gzip stream")
    except zlib.error as exc:
        raise corrupt(exc) from None


def check_payload_ratio(entries: list[Entry], compressed: int, limits: Limits) -> None:
    """Refuse an archive whose files expand more than ``max_ratio`` times its compressed size."""
    if limits.ratio_exceeded(sum(len(e.data) for e in entries), compressed):
        raise _ratio_error("the archive")


def _ratio_error(what: str, path: str = "") -> ArchiveError:
    return ArchiveError(
        "compression-ratio",
        f"{what} expands more than the allowed ratio; it looks like a decompression bomb.",
        path=path,
    )


# --- tar ----------------------------------------------------------------------------------------------


def read_tar(raw: bytes, limits: Limits) -> list[Entry]:
    try:
        return list(_tar_entries(raw, limits))
    except ArchiveError:
        raise
    except _DAMAGED as exc:
        raise corrupt(exc) from None


def _tar_entries(raw: bytes, limits: Limits) -> Iterator[Entry]:
    with tarfile.open(fileobj=io.BytesIO(raw), mode="r:") as tf:
        count = total = 0
        while (member := tf.next()) is not None:
            count += 1
            _count(count, limits)
            path = normalize_path(member.name, limits)
            _check_tar_type(member, path)
            if member.isdir():
                if path:
                    yield Entry(path, "dir")
                continue
            if not path:
                raise ArchiveError("bad-name", "A file entry has an empty name.")
            total += member.size
            _check_size(path, member.size, total, limits)
            handle = tf.extractfile(member)
            content = handle.read() if handle is not None else b""
            if len(content) != member.size:
                raise corrupt(f"{path!r} is shorter than its header says")
            yield Entry(path, "file", content)
        tail = raw[tf.offset :]
    if len(tail) < _TAR_BLOCK or tail.strip(b"\x00"):
        raise corrupt("no end-of-archive marker after the last entry")


def _check_tar_type(member: tarfile.TarInfo, path: str) -> None:
    if member.issym():
        raise ArchiveError("symlink", f"{path!r} is a symbolic link; links are not allowed.", path=path)
    if member.islnk():
        raise ArchiveError("hard-link", f"{path!r} is a hard link; links are not allowed.", path=path)
    if member.ischr() or member.isblk() or member.isfifo():
        raise ArchiveError("special-file", f"{path!r} is a device or FIFO; only files are allowed.", path=path)
    if member.issparse() or not (member.isreg() or member.isdir()):
        raise ArchiveError("unsupported-entry", f"{path!r} has an unsupported entry type.", path=path)


# --- zip ----------------------------------------------------------------------------------------------


def read_zip(raw: bytes, limits: Limits) -> list[Entry]:
    _count(declared_entries(raw) or 0, limits)  # before zipfile parses the whole central directory
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as zf:
            infos = zf.infolist()
            _count(len(infos), limits)
            planned = _plan_zip(infos, len(raw), limits)
            return [_read_zip_entry(zf, info, path) for info, path in planned]
    except ArchiveError:
        raise
    except _DAMAGED as exc:
        raise corrupt(exc) from None


def _plan_zip(infos: list[zipfile.ZipInfo], raw_size: int, limits: Limits) -> list[tuple[zipfile.ZipInfo, str]]:
    """Check every entry's name, type and declared sizes before any data is decompressed."""
    planned: list[tuple[zipfile.ZipInfo, str]] = []
    total = 0
    for info in infos:
        path = normalize_path(info.orig_filename, limits)
        _check_zip_type(info, path)
        if info.flag_bits & 0x1:
            raise ArchiveError("encrypted", f"{path!r} is encrypted; encrypted archives are not supported.", path=path)
        if not path:
            continue
        if not info.is_dir():
            total += info.file_size
            _check_size(path, info.file_size, total, limits)
            if limits.ratio_exceeded(info.file_size, info.compress_size):
                raise _ratio_error(repr(path), path)
        planned.append((info, path))
    if limits.ratio_exceeded(total, raw_size):
        raise _ratio_error("the archive")
    return planned


def _check_zip_type(info: zipfile.ZipInfo, path: str) -> None:
    mode = info.external_attr >> 16
    if info.create_system != 3 or mode == 0:  # mode bits are only meaningful from Unix hosts
        return
    if stat.S_ISLNK(mode):
        raise ArchiveError("symlink", f"{path!r} is a symbolic link; links are not allowed.", path=path)
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        raise ArchiveError("special-file", f"{path!r} is a device, FIFO or socket; only files are allowed.", path=path)


def _read_zip_entry(zf: zipfile.ZipFile, info: zipfile.ZipInfo, path: str) -> Entry:
    if info.is_dir():
        return Entry(path, "dir")
    with zf.open(info) as handle:
        content = handle.read(info.file_size + 1)
    if len(content) != info.file_size:
        raise corrupt(f"{path!r} does not match its declared size")
    return Entry(path, "file", content)
