"""Pieces of scripts/bench.py: one module per group of measurements (see docs/benchmarks.md)."""
