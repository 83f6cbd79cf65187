"""Tidepool's static server and fetch proxy (aiohttp). `scripts/serve.py` is the command line."""
