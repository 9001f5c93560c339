"""The REST API: thin views that validate input, call one service or selector, and serialize."""
