"""Uploads: bots and their versions, the workers' check of each, the example bots."""
