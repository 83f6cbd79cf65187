"""Agent Skills: safe archive extraction, SKILL.md validation, compatibility scan, import and catalog.

Importing this package changes nothing; callers use the modules directly.
"""
