"""Model providers: OpenAI-compatible chat/completions over HTTP-over-frames."""
