#!/usr/bin/env python3
"""Stamp a built `dist/` with its build id, for the service worker (docs/offline.md).

The build id is a digest of every file the app serves (index.html without its stamp; not sw.js nor the
manifest written here), so two builds with the same files have the same id and any change makes a new one.
The stamp goes into three places, which is all the versioning there is:

- `index.html`: `<meta name="tidepool-build" content="ID">` (the page knows which build it is);
- `offline-manifest.json`: `{"build": ID, "files": [{"path", "size", "sha256"}]}`, what the service worker
  caches, each file checked against its digest;
- `sw.js`: its `tidepool-build:…` literal becomes `tidepool-build:ID`, so the browser sees a new service
  worker script for a new build (and only then).

Run by the Vite build (vite.config.ts) on its output folder; running it again on the same files changes
nothing. Usage: offline_stamp.py DIST
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

MANIFEST = "offline-manifest.json"
WORKER = "sw.js"
INDEX = "index.html"
BUILD_META = re.compile(r'<meta name="tidepool-build" content="[^"]*">')
BUILD_LITERAL = re.compile(r"tidepool-build:[0-9A-Za-z_-]*")
# Served by the server but not files the app runs from offline: source maps are for debugging only.
LEFT_OUT_SUFFIXES = (".map",)


def served_files(dist: Path) -> list[Path]:
    skip = {dist / MANIFEST, dist / WORKER}
    files = [p for p in dist.rglob("*") if p.is_file() and p not in skip]
    visible = [p for p in files if not any(part.startswith(".") for part in p.relative_to(dist).parts)]
    return sorted(p for p in visible if not p.name.endswith(LEFT_OUT_SUFFIXES))


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def stamp(dist: Path) -> str:
    """Stamp `dist` (see the module's doc); returns the build id."""
    index_path = dist / INDEX
    index = BUILD_META.sub("", index_path.read_text(encoding="utf-8"))
    contents = {p: index.encode() if p == index_path else p.read_bytes() for p in served_files(dist)}
    listing = "\n".join(f"{p.relative_to(dist).as_posix()} {digest(b)}" for p, b in contents.items())
    build = digest(listing.encode())[:16]
    at = index.find("<head>") + len("<head>")
    index = f'{index[:at]}<meta name="tidepool-build" content="{build}">{index[at:]}'
    index_path.write_text(index, encoding="utf-8")
    contents[index_path] = index.encode()
    files = [
        {"path": "/" + p.relative_to(dist).as_posix(), "size": len(b), "sha256": digest(b)} for p, b in contents.items()
    ]
    (dist / MANIFEST).write_text(json.dumps({"build": build, "files": files}, indent=1) + "\n", encoding="utf-8")
    worker = dist / WORKER
    text = worker.read_text(encoding="utf-8")
    if not BUILD_LITERAL.search(text):
        sys.exit(f"offline_stamp: {worker} has no tidepool-build literal to stamp")
    worker.write_text(BUILD_LITERAL.sub(f"tidepool-build:{build}", text), encoding="utf-8")
    return build


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: offline_stamp.py DIST")
    print(f"offline_stamp: build {stamp(Path(sys.argv[1]).resolve())}")
