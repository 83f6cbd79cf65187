"""The system prompt: a jinja2 template (StrictUndefined) and its renderer."""
