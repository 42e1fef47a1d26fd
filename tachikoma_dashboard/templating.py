"""What the templates can use besides their context: filters, globals, and
the memory folder and current page for the layout."""

from __future__ import annotations

from flask import Flask, g, request

from tachikoma import memory
from tachikoma.humanize import (duration, language_hint, named_text, no_match_reason, nowhere_text,
                                other_languages_text, printable, secrets_text, widened_text)
from tachikoma.config import RECENCY_PRESETS
from tachikoma.reading.documents import KINDS
from tachikoma.transcripts import without_context  # a result shows its file and date: not its context lines
from tachikoma.reading.tags import CONFIDENCE_VALUES, STATUSES, TAG_KEYS, TRUST_VALUES
from tachikoma.vocabulary import DEFAULTS_TEXT
from tachikoma.web import render
from tachikoma.web.forms import DEFAULT_LIMIT, MAX_LIMIT, file_pattern
from tachikoma.web.memory_file import speaker_class


def install_template_helpers(app: Flask) -> None:
    app.jinja_env.trim_blocks = True
    app.jinja_env.lstrip_blocks = True
    app.jinja_env.filters.update(
        highlight=render.highlight, snippet=render.snippet, passage=without_context, ago=render.ago, when=render.when,
        num=render.num, pct=render.pct, dated=render.dated, fraction=render.fraction, plural=render.plural,
        duration=duration, other_languages=other_languages_text, secrets=secrets_text,
        # a file's name as the command line prints it: a right-to-left override or a newline escaped, not obeyed
        printable=printable,
    )
    app.jinja_env.globals.update(
        explain=render.explain, language_hint=language_hint, nowhere_text=nowhere_text, widened_text=widened_text,
        named_text=named_text,
        no_match_reason=no_match_reason,
        speaker_class=speaker_class,
        STATUSES=STATUSES, KINDS=KINDS,
        TRUST_VALUES=TRUST_VALUES, CONFIDENCE_VALUES=CONFIDENCE_VALUES, TAG_KEYS=TAG_KEYS,
        DEFAULT_LIMIT=DEFAULT_LIMIT, MAX_LIMIT=MAX_LIMIT, file_pattern=file_pattern, kind_of=memory.kind_of,
        RECENCY_PRESETS=tuple(RECENCY_PRESETS), DEFAULTS_TEXT=DEFAULTS_TEXT,
        TOOL_TEXT_SHOWN=2000,  # characters of one tool text a transcript's page shows
    )

    @app.context_processor
    def layout():
        endpoint = request.endpoint or ""
        # on a shared dashboard, nothing of the memory (not even its folder) before signing in; and nothing to a
        # request the guards refused (a foreign Host: a DNS-rebinding page reads what it is answered)
        shown = (app.config.get("TACHIKOMA_ACCESS") is None or g.get("identity") is not None) and not g.get("stranger")
        return {"memory_root": str(app.config["TACHIKOMA_ROOT"]) if shown else None,
                # a shared dashboard keeps no page in the browser's storage (htmx's history cache), where it
                # would outlive signing out: going back asks the server again
                "shared": app.config.get("TACHIKOMA_ACCESS") is not None,
                "nav": endpoint.rpartition(".")[2], "index_version": app.extensions["tachikoma"].index_version}

