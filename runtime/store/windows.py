"""Context windows per (provider, base URL, model): what a provider's model list or refusal said."""

from __future__ import annotations

from runtime.store.base import StoreBase


class WindowsMixin(StoreBase):
    def model_window(self, provider: str, base_url: str, model: str) -> int | None:
        row = self._one(
            "SELECT context_length FROM model_windows WHERE provider = ? AND base_url = ? AND model = ?",
            [provider, base_url, model],
        )
        return int(row["context_length"]) if row else None

    def set_model_window(self, provider: str, base_url: str, model: str, context_length: int) -> bool:
        """Keep the window; True when it changed (the caller then saves the state)."""
        if context_length <= 0 or self.model_window(provider, base_url, model) == context_length:
            return False
        self._db.execute(
            "INSERT INTO model_windows (provider, base_url, model, context_length, updated) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (provider, base_url, model) DO UPDATE SET context_length = excluded.context_length, "
            "updated = excluded.updated",
            [provider, base_url, model, context_length, self._now()],
        )
        return True
