"""Builders for test archives (zip, tar, tar.gz with any entry type) and a tree fingerprint."""

from __future__ import annotations

import hashlib
import io
import os
import stat
import tarfile
import warnings
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

EntryType = Literal["file", "dir", "symlink", "hardlink", "chr", "blk", "fifo"]


@dataclass(frozen=True)
class Item:
    """One archive entry to build. ``target`` is the link target for links."""

    name: str
    data: bytes = b""
    type: EntryType = "file"
    target: str = ""
    pax: dict[str, str] = field(default_factory=dict)


def skill_md(name: str, description: str = "Does a thing.", extra: str = "", body: str = "# Body\n") -> bytes:
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n{body}".encode()


_TAR_TYPES = {
    "file": tarfile.REGTYPE,
    "dir": tarfile.DIRTYPE,
    "symlink": tarfile.SYMTYPE,
    "hardlink": tarfile.LNKTYPE,
    "chr": tarfile.CHRTYPE,
    "blk": tarfile.BLKTYPE,
    "fifo": tarfile.FIFOTYPE,
}
_ZIP_MODES = {
    "file": stat.S_IFREG | 0o644,
    "dir": stat.S_IFDIR | 0o755,
    "symlink": stat.S_IFLNK | 0o777,
    "chr": stat.S_IFCHR | 0o644,
    "blk": stat.S_IFBLK | 0o644,
    "fifo": stat.S_IFIFO | 0o644,
}


def make_tar(items: list[Item], *, gz: bool = False) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz" if gz else "w", format=tarfile.PAX_FORMAT) as tf:
        for item in items:
            info = tarfile.TarInfo(item.name)
            info.type = _TAR_TYPES[item.type]
            info.linkname = item.target
            info.pax_headers = dict(item.pax)
            info.size = len(item.data) if item.type == "file" else 0
            tf.addfile(info, io.BytesIO(item.data) if item.type == "file" else None)
    return buf.getvalue()


def make_zip(items: list[Item], *, compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(buf, "w", compression=compression) as zf:
        warnings.simplefilter("ignore", UserWarning)  # duplicate names are built on purpose
        for item in items:
            info = zipfile.ZipInfo(item.name + ("/" if item.type == "dir" else ""))
            info.create_system = 3
            info.external_attr = _ZIP_MODES[item.type] << 16
            info.compress_type = compression
            zf.writestr(info, item.target.encode() if item.type == "symlink" else item.data)
    return buf.getvalue()


def zip_with_nul(name_with_x: str, data: bytes = b"x") -> bytes:
    """A zip whose entry name has a NUL where ``name_with_x`` has its single ``X``."""
    raw = make_zip([Item(name_with_x, data)])
    patched = name_with_x.replace("X", "\x00").encode()
    return raw.replace(name_with_x.encode(), patched)


def zip_encrypted_flag(items: list[Item]) -> bytes:
    """A zip whose entries claim to be encrypted (flag bit 0 in local and central headers)."""
    raw = bytearray(make_zip(items, compression=zipfile.ZIP_STORED))
    for sig, flag_offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        start = 0
        while (pos := raw.find(sig, start)) >= 0:
            raw[pos + flag_offset] |= 0x01
            start = pos + 4
    return bytes(raw)


def tree_fingerprint(root: Path) -> str:
    """A hash of every path, type, mode and content under ``root`` (links are not followed)."""
    digest = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted([*dirnames, *filenames]):
            path = Path(dirpath) / name
            st = path.lstat()
            digest.update(f"{path.relative_to(root).as_posix()}\0{st.st_mode}\0".encode())
            if stat.S_ISLNK(st.st_mode):
                digest.update(os.readlink(path).encode())
            elif stat.S_ISREG(st.st_mode):
                digest.update(path.read_bytes())
    return digest.hexdigest()
