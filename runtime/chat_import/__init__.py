"""Chats from other apps' exports (ChatGPT, Claude.ai) and Tidepool's own session export, read into plain values."""

from runtime.chat_import.model import ImportRefused, ImportReport
from runtime.chat_import.reader import read_export
from runtime.store.imported import ImportedChat, ImportedMessage

__all__ = ["ImportRefused", "ImportReport", "ImportedChat", "ImportedMessage", "read_export"]
