"""The runtime's boundary: frame codec, transports, RPC and HTTP over frames."""
