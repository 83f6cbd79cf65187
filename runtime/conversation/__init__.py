"""The live conversation with the host, one concept a module: the pump and handshake
(``conversation``), settings and the permission gate (``settings``), the provider cache
(``providers``), the turn runner with approvals (``turns``) and the stored-session switcher
(``switcher``). A *stored* session is a row in the store; the conversation is in one at a time."""
