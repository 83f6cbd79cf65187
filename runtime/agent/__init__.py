"""The agent: conversation values, the turn loop, the tool gate and the tools' context."""
