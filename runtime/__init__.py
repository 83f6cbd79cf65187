"""Tidepool's agent runtime: a process that speaks frames on stdin/stdout."""

__version__ = "0.1.0"
