"""The dashboard: its Flask application and routes, and their Flask glue (the request guards: Host
check, security headers, refused CSRF tokens; the sign-in of a shared dashboard; how a response is
made: full page, htmx fragment, JSON, error pages; what the templates can use). These modules import
Flask, so they live here and not in the `tachikoma` package, which stays free of Flask
(tests/test_architecture.py): `tachikoma_dashboard` imports `tachikoma`, never the other way round
(but for `tachikoma serve`, which starts `app.create_app`). The pieces that need no Flask are in
`tachikoma.web`. The templates and static files stay at the top of the repository; a wheel ships them
inside this package (setup.py).

- `app`: `create_app`, the application factory (`flask --app tachikoma_dashboard.app run`);
- `routes`: the pages and the JSON API, on one blueprint;
- `guards`: the Host allow-list, security headers, refused CSRF tokens;
- `login`: the sign-in of a shared dashboard (`tachikoma.web.access` decides who);
- `responses`: a full page or the htmx fragment, JSON, error pages;
- `templating`: the filters and globals the templates use.
"""
