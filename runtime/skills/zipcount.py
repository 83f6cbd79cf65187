"""How many entries a zip says it has, read from its end records before its central directory is parsed.

``zipfile`` builds a ``ZipInfo`` for every central-directory entry before anyone can count them: a small
archive declaring hundreds of thousands of entries costs hundreds of MiB and seconds before a limit could
refuse it. The end-of-central-directory record (and the ZIP64 one, when present) states the count and
the directory's size; this module reads those, and counts the central headers actually present in the
directory's bytes (an archive may lie in its count), so a limit refuses it first.
"""

from __future__ import annotations

import struct

_EOCD = b"PK\x05\x06"
_EOCD_SIZE = 22
_MAX_COMMENT = 0xFFFF
_ZIP64_LOCATOR = b"PK\x06\x07"
_ZIP64_LOCATOR_SIZE = 20
_ZIP64_EOCD = b"PK\x06\x06"
_CENTRAL_HEADER = b"PK\x01\x02"


def declared_entries(raw: bytes) -> int | None:
    """The larger of the entry count the zip declares and the central headers in its directory.

    ``None`` when no end record is found (``zipfile`` then reports the damage).
    """
    at = raw.rfind(_EOCD, max(0, len(raw) - _EOCD_SIZE - _MAX_COMMENT))
    if at < 0 or len(raw) < at + _EOCD_SIZE:
        return None
    total, cd_size = struct.unpack_from("<xxxxxxxxxxHI", raw, at)
    directory_end = at
    locator = at - _ZIP64_LOCATOR_SIZE
    if locator >= 0 and raw[locator : locator + 4] == _ZIP64_LOCATOR:
        record = raw.rfind(_ZIP64_EOCD, 0, locator)
        if record >= 0 and len(raw) >= record + 56:
            total, cd_size = struct.unpack_from("<32xQQ", raw, record)
            directory_end = record
    start = max(0, directory_end - min(cd_size, directory_end))
    present = raw.count(_CENTRAL_HEADER, start, directory_end)
    return max(int(total), present)
