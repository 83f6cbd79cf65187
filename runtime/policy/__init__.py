"""Permissions (allow / ask / deny by effect class and by rule), pre- and post-hooks, loop guardrails."""
