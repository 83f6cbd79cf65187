"""Chats from other apps' exports (ChatGPT, Claude.ai) and Tidepool's own session export, read into plain values."""

from runtime.chat_import.model import ImportedChat, ImportedMessage, ImportRefused, ImportReport
from runtime.chat_import.reader import read_export

__all__ = ["ImportRefused", "ImportReport", "ImportedChat", "ImportedMessage", "read_export"]
