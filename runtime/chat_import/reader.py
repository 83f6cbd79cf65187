"""Which export a file is, and its chats: a JSON file or a zip of them, read within bounds.

A zip is read entry by entry with a cap on every entry's size and on the total, so a zip bomb
costs at most the cap; only the entries that can hold conversations are read (``conversations.json``,
``conversations-000.json``…, a Tidepool session export ``*.json``), wherever they sit in the zip.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Iterable
from typing import Any

import runtime.chat_import.chatgpt as chatgpt
import runtime.chat_import.claude as claude
from runtime.chat_import.model import ImportRefused, ImportReport
from runtime.store.export import EXPORT_FORMAT

MAX_FILE = 512 * 1024 * 1024  # the most of an export read, unpacked
MAX_ENTRIES = 20_000
_CONVERSATIONS = re.compile(r"(^|/)conversations(-\d+)?\.json$")


def read_export(data: bytes, name: str = "") -> ImportReport:
    """The chats in ``data``; raises ImportRefused when nothing in it is an export this app reads."""
    report = ImportReport()
    if data[:4] == b"PK\x03\x04":
        documents = list(_zip_documents(data, report))
    else:
        documents = [(name or "the file", _parse(data, name or "the file"))]
    for where, document in documents:
        _read_document(document, where, report)
    if report.state == "rejected":
        raise ImportRefused(_why_nothing(report, name))
    return report


def _why_nothing(report: ImportReport, name: str) -> str:
    detail = "; ".join(report.skipped[:3])
    base = f"{name or 'The file'} holds no chat this app can import"
    return (
        f"{base}: {detail}"
        if detail
        else (f"{base} (expected a Tidepool session export, ChatGPT's conversations.json or zip, or Claude's export)")
    )


def _parse(data: bytes, where: str) -> Any:
    if len(data) > MAX_FILE:
        raise ImportRefused(f"{where} is over {MAX_FILE // 2**20} MB, the most this app reads")
    try:
        return json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as error:
        raise ImportRefused(f"{where} is not text (UTF-8): {error.reason} at byte {error.start}") from error
    except json.JSONDecodeError as error:
        raise ImportRefused(f"{where} is not valid JSON: {error.msg} at line {error.lineno}") from error


def _zip_documents(data: bytes, report: ImportReport) -> Iterable[tuple[str, Any]]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        entries = archive.infolist()
    except (zipfile.BadZipFile, EOFError) as error:
        raise ImportRefused(f"the zip is damaged: {error}") from error
    if len(entries) > MAX_ENTRIES:
        raise ImportRefused(f"the zip has {len(entries)} entries, more than the {MAX_ENTRIES} this app reads")
    wanted = [e for e in entries if not e.is_dir() and _wanted(e.filename)]
    if not wanted:
        raise ImportRefused("the zip holds no conversations.json (or conversations-*.json) to import")
    budget = MAX_FILE
    for entry in sorted(wanted, key=lambda e: e.filename):
        body = _read_entry(archive, entry, budget)
        budget -= len(body)
        try:
            yield entry.filename, _parse(body, entry.filename)
        except ImportRefused as error:
            report.skipped.append(str(error))


def _wanted(filename: str) -> bool:
    return bool(_CONVERSATIONS.search(filename)) or (filename.endswith(".json") and "/" not in filename.strip("/"))


def _read_entry(archive: zipfile.ZipFile, entry: zipfile.ZipInfo, budget: int) -> bytes:
    try:
        with archive.open(entry) as stream:
            body = stream.read(budget + 1)
    except (zipfile.BadZipFile, EOFError, OSError, NotImplementedError, RuntimeError) as error:
        raise ImportRefused(f"the zip's entry {entry.filename} cannot be read: {error}") from error
    if len(body) > budget:
        raise ImportRefused(f"the zip unpacks to more than {MAX_FILE // 2**20} MB, the most this app reads")
    return body


def _read_document(document: Any, where: str, report: ImportReport) -> None:
    if isinstance(document, dict) and document.get("format") == EXPORT_FORMAT:
        report.sessions.append(document)
        return
    items = document.get("conversations") if isinstance(document, dict) else document
    if isinstance(items, dict) or (isinstance(document, dict) and items is None):
        items = [document]
    if not isinstance(items, list):
        report.skipped.append(f"{where} is not a list of conversations")
        return
    for index, item in enumerate(items):
        _read_item(item, f"{where}, conversation {index + 1}", report)


def _read_item(item: Any, where: str, report: ImportReport) -> None:
    reader = chatgpt if chatgpt.is_chatgpt(item) else claude if claude.is_claude(item) else None
    if reader is None:
        report.skipped.append(f"{where} is neither a ChatGPT nor a Claude conversation")
        return
    try:
        chat = reader.read_conversation(item)
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        report.skipped.append(f"{where} could not be read ({type(error).__name__}: {error})")
        return
    if not chat.messages:
        report.skipped.append(f"{where} ({chat.title or 'untitled'}) has no message to import")
        return
    report.chats.append(chat)
