"""Tools the model can call: defined once with @tool, listed once in the registry."""
