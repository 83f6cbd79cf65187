"""The conversation's values (``messages``: system, user, assistant, tool results, tool calls) and
how stored messages become them (``history``). Providers, the agent loop and persistence all speak
these; this package depends on nothing of theirs."""
