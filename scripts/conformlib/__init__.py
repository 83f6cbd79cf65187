"""The real-model conformance layer (scripts/conformance.py)."""
