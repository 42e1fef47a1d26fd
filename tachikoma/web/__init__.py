"""The web dashboard's pieces that need no Flask; the package
`tachikoma_dashboard` (beside this one) holds the Flask application, its
routes and its glue: guards, sign-in, responses, template helpers.

- `access`: who may use a shared dashboard or MCP over HTTP (tokens, proxies);
- `hosts`: which Host header names the served address (the dashboard's and MCP over HTTP's one rule);
- `state`: what outlives a request (searcher, warm-up, undo store);
- `index_job`: the background index run and its progress;
- `forms`: the search and bulk-tagging forms, read and checked;
- `render`: highlighting, snippets, the score explanation, dates and numbers;
- `memory_file`: a memory file as its page shows it (sanitised markdown
  blocks, transcript turns);
- `serving`: the servers `tachikoma serve` runs on (waitress; uvicorn with
  --mcp) and their quiet console.
"""
