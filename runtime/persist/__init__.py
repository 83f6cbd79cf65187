"""The conversation's record: the state database's files, saving to the host, the journal of turns."""
