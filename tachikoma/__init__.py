"""tachikoma: a local memory index and dashboard for an AI agent's file-based memory."""

__version__ = "0.1.0"
