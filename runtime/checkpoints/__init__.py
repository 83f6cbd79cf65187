"""Checkpoints: the workspace files a turn changed, kept as they were before it (``store``)."""
