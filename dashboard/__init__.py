"""The dashboard's Flask glue: the request guards (Host check, security headers,
refused CSRF tokens), the sign-in of a shared dashboard, how a response is made
(full page, htmx fragment, JSON, error pages) and what the templates can use.
These modules import Flask, so they live here beside `app.py` and not in the
`tachikoma` package, which stays free of Flask (tests/test_architecture.py):
`app.py` and `dashboard` import `tachikoma`, never the other way round.

- `guards`: the Host allow-list, security headers, refused CSRF tokens;
- `login`: the sign-in of a shared dashboard (`tachikoma.web.access` decides who);
- `responses`: a full page or the htmx fragment, JSON, error pages;
- `templating`: the filters and globals the templates use.
"""
