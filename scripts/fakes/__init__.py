"""Fakes for tests and benchmarks: real servers on 127.0.0.1 (the fake LLM) and process helpers."""
