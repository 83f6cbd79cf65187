"""Host ``request`` methods: one table of method → handler (``dispatch``), one module per concept."""
