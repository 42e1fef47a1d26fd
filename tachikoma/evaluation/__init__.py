"""Retrieval evaluations: benchmark data → memory folders → the normal index and search → metrics."""
