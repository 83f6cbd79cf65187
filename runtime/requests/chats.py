"""Chat import: a file the person chose (Tidepool session JSON, ChatGPT's or Claude's export) becomes sessions."""

from pathlib import Path
from typing import TYPE_CHECKING, Literal, NotRequired, TypedDict

from runtime.chat_import import ImportRefused, ImportReport, read_export
from runtime.chat_import.reader import MAX_FILE
from runtime.persist.display import SessionRecord, session_record
from runtime.requests.method import Method, Table
from runtime.requests.params import RequestError, text
from runtime.store.errors import StoreError

if TYPE_CHECKING:
    from runtime.requests.ports import Ports
    from runtime.store import Store

ChatImportState = Literal["ok", "partial", "rejected"]


class ChatImportParams(TypedDict):
    path: str  # where the host stored the file (under INCOMING_DIR); the host adds it
    filename: str
    size: NotRequired[int]


class ImportedSession(TypedDict):
    session: SessionRecord
    source: str  # "tidepool", "chatgpt", "claude"
    messages: int  # in the branch shown
    branches: int


class ChatImportReport(TypedDict):
    state: ChatImportState
    message: str  # one sentence: what came in, or why nothing did
    imported: list[ImportedSession]
    problems: list[str]  # what could not come in, each with why


async def chat_import(ports: "Ports", params: ChatImportParams) -> ChatImportReport:
    path = Path(text(params, "path"))
    if not path.is_absolute() or not path.is_file():
        raise RequestError("bad_params", "params.path must name the stored file (an absolute path to a file)")
    name = text(params, "filename", empty=True) or path.name
    if path.stat().st_size > MAX_FILE:
        return _rejected(f"{name} is over {MAX_FILE // 2**20} MB, the most this app reads.")
    try:
        report = read_export(path.read_bytes(), name)
    except ImportRefused as error:
        return _rejected(f"{error}.")
    store = await ports.state.store()
    imported, problems = _store_all(store, report)
    await ports.state.save()
    if not imported:
        return _rejected(f"Nothing in {name} could be imported.", problems)
    chats = "1 chat" if len(imported) == 1 else f"{len(imported)} chats"
    tail = f"; {len(problems)} thing{'s' if len(problems) != 1 else ''} could not come in" if problems else ""
    message = f"Imported {chats} from {name}{tail}."
    return {"state": "partial" if problems else "ok", "message": message, "imported": imported, "problems": problems}


def _store_all(store: "Store", report: "ImportReport") -> tuple[list[ImportedSession], list[str]]:
    imported: list[ImportedSession] = []
    problems = list(report.problems())
    for document in report.sessions:
        try:
            session = store.import_session_document(document)
        except StoreError as error:
            problems.append(f"a Tidepool session: {error}")
            continue
        shown = len(store.list_messages(session.id))
        imported.append({"session": session_record(session), "source": "tidepool", "messages": shown, "branches": 1})
    for chat in report.chats:
        session = store.import_chat(chat)
        imported.append(
            {"session": session_record(session), "source": chat.source, "messages": len(chat.path()),
             "branches": chat.branch_count()}
        )  # fmt: skip
    return imported, problems


def _rejected(message: str, problems: list[str] | None = None) -> ChatImportReport:
    return {"state": "rejected", "message": message, "imported": [], "problems": problems or []}


METHODS: Table = {"chat_import": Method(ChatImportParams, ChatImportReport, chat_import, file=True)}
