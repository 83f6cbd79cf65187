"""Tidepool's agent runtime: a process that speaks frames on stdin/stdout."""

from runtime.host.constants import PROTOCOL_VERSION as PROTOCOL_VERSION

__version__ = "0.1.0"
