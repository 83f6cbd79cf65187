"""Helpers shared by the tests, one copy each: the host played over frames, scripted providers, the
conversation rigs, the adapter harness, gates and ``until``-style waits."""
