"""Search: embed the query, score every chunk, rank, explain (see docs/architecture.md, "search/")."""
