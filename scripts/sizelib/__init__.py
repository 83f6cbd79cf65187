"""Helpers of scripts/check_sizes.py."""
