"""The web dashboard's pieces; `app.py` holds the Flask factory and the routes.

- `guards`: the Host allow-list, security headers, refused CSRF tokens;
- `responses`: a full page or the htmx fragment, JSON, error pages;
- `state`: what outlives a request (searcher, warm-up, undo store);
- `index_job`: the background index run and its progress;
- `forms`: the search and bulk-tagging forms, read and checked;
- `render`: highlighting, snippets, the score explanation, dates and numbers;
- `memory_file`: a memory file as its page shows it (sanitised markdown
  blocks, transcript turns);
- `templating`: the filters and globals the templates use;
- `serving`: the servers `tachikoma serve` runs on (waitress; uvicorn with
  --mcp) and their quiet console.
"""
