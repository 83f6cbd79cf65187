"""Agent profiles (``profiles``): the presets and the user's own agents, and what each may use."""
