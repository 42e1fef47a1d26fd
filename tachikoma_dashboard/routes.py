"""The dashboard's routes, on the blueprint `bp` that `tachikoma_dashboard.app.create_app` registers:
search with explanations, memory files, tag coverage, bulk tagging with undo, and re-indexing.

The routes stay thin: they read the request, call the `tachikoma` package and
render a template. A normal request gets a full page; an htmx request
(HX-Request header) gets only the fragment it swaps in, each rendered from its
own template in ``templates/partials/``. The pieces they use live in
`tachikoma.web` (no Flask there) and, for the Flask glue, beside this module.
"""

from __future__ import annotations

from flask import Blueprint, abort, current_app, make_response, redirect, render_template, request, send_file, url_for

from tachikoma import stats
from tachikoma.indexer import status
from tachikoma.tagging import applying, model, planning, undoing
from tachikoma.errors import EmbedderError, TachikomaError
from tachikoma.humanize import when
from tachikoma.memory import PathExcluded
from tachikoma.replies.reply import as_json
from tachikoma.search.pool import indexed_file
from tachikoma.store.postgres_errors import redacted
from tachikoma.web.recent_taggings import merged, tagging_commits
from tachikoma.web.forms import FileListForm, SearchForm, TagForm, plan_fingerprint
from tachikoma.web.memory_file import indexed_file_view, page_path, parse_lines, read_memory_file
from tachikoma.web.memory_image import SVG, SVG_CSP, find_image
from tachikoma.web.state import KEPT_UNDOS, Dashboard, NoIndex
from tachikoma.web.vendor import htmx_script
from tachikoma_dashboard.login import identity
from tachikoma_dashboard.responses import (counting_failure, error_response, failure_status, is_fragment_request,
                                           json_error, json_response, page)

bp = Blueprint("dashboard", __name__)
FRESH_REINDEX_SECONDS = 120  # the search page says "the index is ready" this long after a re-index


def dash() -> Dashboard:
    return current_app.extensions["tachikoma"]


def changed_by() -> str:
    """Who a commit made for this request names: the signed-in person on a shared dashboard, else nobody."""
    who = identity()
    return who.changed_by("dashboard") if who else ""


@bp.get("/vendor/htmx.min.js")
def htmx_js():
    path = htmx_script()
    if path is None:
        abort(404)
    return send_file(path, mimetype="text/javascript", max_age=3600)


# --------------------------------------------------------------------------- search


@bp.get("/")
def search():
    form = SearchForm.read(request.args)
    ctx = {"form": form, "answer": None, "error": None, "no_index": False,
           "recency": form.recency or dash().recency(), **memory_choice(form)}
    status = 400 if form.errors else 200
    if form.q and not form.errors:
        try:
            ctx["answer"] = dash().search(form.q, form.limit, form.filters(), form.min_score, form.recency or None,
                                          form.as_of or None, form.memories, fresh_only=form.fresh_only)
        except NoIndex:
            ctx["no_index"] = True
        except EmbedderError as exc:
            ctx["error"], status = {"title": "The embedder is not available", "message": str(exc)}, 503
        except TachikomaError as exc:
            ctx["error"], status = {"title": "Search failed", "message": str(exc)}, failure_status(exc)
    elif not form.q:
        try:
            ctx["no_index"] = not dash().has_index()
        except TachikomaError as exc:  # a shared store that cannot be reached: the page says so in one line
            ctx["error"], status = {"title": "The index cannot be reached", "message": str(exc)}, failure_status(exc)
        else:
            dash().warm_up()
        ctx["fresh_job"] = dash().index_job.finished_recently("reindex", FRESH_REINDEX_SECONDS)
    if ctx["no_index"]:
        ctx["job"] = dash().index_job.snapshot()
    return page("search.html", "partials/results.html", status=status, **ctx)


def memory_choice(form: SearchForm) -> dict:
    """On a shared store: the memories the search page offers (`memory_choices`), this one's name
    (`own_memory`: only its results link to its files) and which are chosen; `form` gets an error for
    a memory the store does not hold."""
    try:
        known, own = dash().memory_names(), dash().memory_name()
    except TachikomaError:
        known, own = [], None  # an unreachable server: the search itself says so
    form.check_memories(known)
    return {"memory_choices": known if len(known) > 1 else [], "own_memory": own,
            "chosen_memories": form.memories or ((own,) if own else ())}


@bp.get("/api/search")
def api_search():
    form = SearchForm.read(request.args)
    if refusal := form.api_refusal():
        return json_error(refusal, 400)
    try:
        answer = dash().search(form.q, form.limit, form.filters(), form.min_score, form.recency or None,
                               form.as_of or None, form.memories, form.budget_tokens, form.fresh_only,
                               agent_text=form.agent_text)
        return json_response(as_json(answer, agent_text=form.agent_text))
    except TachikomaError as exc:
        return json_error(str(exc), failure_status(exc))


# --------------------------------------------------------------------------- one memory file


@bp.get("/file/<path:rel>")
def file_page(rel: str):
    lines, exclude = parse_lines(request.args.get("lines")), dash().settings().exclude
    try:
        shown = page_path(dash().root, rel, exclude)
        if shown is not None and shown != rel:  # a symlink to a note is that note: its page, the alias unread
            # The query as it was sent: made again by url_for, a key it reads (rel, _method, _external) broke it.
            query = request.query_string.decode("latin-1")
            return redirect(url_for("dashboard.file_page", rel=shown) + ("?" + query if query else ""), code=302)
        view = None if shown is None else read_memory_file(
            dash().root, rel, lines, link_for=file_url, max_bytes=dash().max_file_bytes(), image_for=image_url,
            redact=dash().redact_secrets(), exclude=exclude)
    except PathExcluded as exc:  # said, not a bare "not found": the setting is why
        return error_response(403, "Left out of the memory", str(exc),
                              hint="To show, search and tag it again, take that pattern out of [index] exclude "
                                   "in the settings file (tachikoma.toml unless --config names another).")
    if view is None:
        abort(404)
    came_from = SearchForm.read(request.args)  # the search a result link came from, for the breadcrumb
    part = "partials/file_head.html" if request.args.get("part") == "head" else "partials/file_body.html"
    return page("file.html", part, search_args=came_from.args() if came_from.q else {},
                tag_form=TagForm.for_file(rel, view["kind"], view["tag_values"]), stale=dash().stale_file(rel),
                **view)


@bp.get("/memories/<name>/file/<path:rel>")
def indexed_file_page(name: str, rel: str):
    """Another memory's file as the shared store's index holds it, passage by passage: a result of a
    search over several memories links here, since this dashboard serves only its own folder."""
    found = indexed_file(dash().root, dash().searchers, name, rel, config=dash().settings())
    if found is None:
        abort(404)
    passages, tags = found
    lines = parse_lines(request.args.get("lines"))
    came_from = SearchForm.read(request.args)
    view = indexed_file_view(passages, lines, rel,
                             lambda path: url_for("dashboard.indexed_file_page", name=name, rel=path))
    return page("indexed_file.html", "indexed_file.html", memory_name=name, rel=rel, lines=lines, tags=tags,
                search_args=came_from.args() if came_from.q else {}, **view)


def file_url(rel: str) -> str:
    return url_for("dashboard.file_page", rel=rel)


def image_url(rel: str) -> str:
    return url_for("dashboard.memory_image", rel=rel)


@bp.get("/image/<path:rel>")
def memory_image(rel: str):
    """An image inside the memory that a note shows (`tachikoma.web.memory_image`); an SVG as an
    attachment under a policy that runs no script."""
    found = find_image(dash().root, rel)
    if found is None:
        abort(404)
    path, mimetype = found
    response = send_file(path, mimetype=mimetype, as_attachment=mimetype == SVG, max_age=0)
    if mimetype == SVG:
        response.headers["Content-Security-Policy"] = SVG_CSP  # kept by the security headers
    return response


# --------------------------------------------------------------------------- coverage


@bp.get("/coverage")
def coverage():
    report, error, status = None, None, 200
    try:
        report = stats.report(dash().root, dash().config_path)
    except TachikomaError as exc:
        error, status = counting_failure(exc)
    return page("coverage.html", "partials/coverage.html", status=status, report=report, error=error,
                job=dash().index_job.snapshot())


@bp.get("/coverage/files")
def coverage_files():
    form = FileListForm.read(request.args)
    files, error, status = [], None, 400 if form.errors else 200
    if not form.errors:
        try:
            files = stats.files(dash().root, status=form.status or None, kind=form.kind or None,
                                folder=form.folder or None, settings=dash().settings())
        except TachikomaError as exc:
            error, status = counting_failure(exc)
    return page("coverage_files.html", "partials/coverage_files.html", status=status, form=form, files=files,
                error=error)


@bp.get("/api/stats")
def api_stats():
    try:
        return json_response(stats.report(dash().root, dash().config_path))
    except TachikomaError as exc:
        problem, status = counting_failure(exc)
        return json_error(problem["message"], status, file=problem["file"], line=problem["line"])


# --------------------------------------------------------------------------- bulk tagging


@bp.get("/tag")
def tag():
    form = TagForm.read(request.args)
    ctx, status = preview(form) if "preview" in request.args else (preview_context(form), 200)
    return page("tag.html", "partials/tag_preview.html", status=status, recent=recent_taggings(), **ctx)


@bp.post("/tag/apply")
def tag_apply():
    form = TagForm.read(request.form)
    ctx, status = preview(form)
    if ctx["plan"] is not None and ctx["fingerprint"] != request.form.get("fingerprint"):
        ctx["stale"], status = True, 409  # the files changed since the preview: show the new one, write nothing
    if status != 200:
        return page("tag.html", "partials/tag_preview.html", status=status, **ctx)
    try:
        applied = applying.apply(dash().root, ctx["plan"], commit=True, by=changed_by(),
                                 config_path=dash().config_path)
    except TachikomaError as exc:
        ctx["error"] = str(exc)
        return page("tag.html", "partials/tag_preview.html", status=500, **ctx)
    undo_id, undo_error = None, None
    if applied.changes:
        try:
            undo_id = dash().undos.remember(applied)
        except (OSError, TachikomaError) as exc:
            undo_error = f"Undo is not available: the undo record could not be saved ({exc})"
    dash().refresh_index()
    # The files the preview already left out (binary, read-only, ...) are said again: the result is the whole story.
    return tagged_page(form, applied, undo_id=undo_id, undone=False, undo_error=undo_error,
                       planned_skipped=ctx["plan"].skipped)


@bp.post("/tag/undo/<undo_id>")
def tag_undo(undo_id: str):
    claim = dash().undos.claim(undo_id)
    if claim is None and (done := dash().undos.undone(undo_id)):
        moment = when(done["undone"])
        by = f" by commit {done['commit'][:10]}" if done["commit"] else ""
        return error_response(409, "Already undone",
                              f"This tagging was already undone {moment['ago']} ({moment['text']}){by}. "
                              "Nothing was changed now.")
    if claim is None:
        return error_response(404, "Nothing to undo",
                              f"this change was already undone, or it is older than the last {KEPT_UNDOS} taggings "
                              "kept for undoing; revert its git commit instead (`git log`, then `git revert <commit>`)")
    try:
        outcome = undoing.undo(dash().root, claim.applied, earlier=claim.progress, commit=True, by=changed_by(),
                               config_path=dash().config_path)
    except TachikomaError as exc:
        dash().undos.put_back(undo_id, claim)  # still undoable once the problem is fixed
        return error_response(500, "Undo failed", str(exc))
    dash().undos.settle(undo_id, claim, outcome)  # undone, or what is left stays to undo under its key
    dash().refresh_index()
    return tagged_page(TagForm.read(request.form), outcome.done, undo_id=None if outcome.rest is None else undo_id,
                       undone=True, outcome=outcome)


def preview_context(form: TagForm, **values) -> dict:
    return {"form": form, "plan": None, "fingerprint": None, "error": None, "stale": False, **values}


def preview(form: TagForm) -> tuple[dict, int]:
    """The plan for the tagging form (nothing written) as the preview shows it, and the status."""
    if form.defaults:
        try:
            plan = planning.default_plan(dash().root, max_bytes=dash().max_file_bytes(), exclude=dash().exclude())
        except TachikomaError as exc:
            return preview_context(form, error=str(exc)), 500
        return preview_context(form, plan=plan, fingerprint=plan_fingerprint(plan)), 200
    parsed = form.parse()
    if parsed is None:
        return preview_context(form), 400
    selector, values = parsed
    try:
        plan = planning.plan(dash().root, values, selector, overwrite=form.overwrite,
                             max_bytes=dash().max_file_bytes(), exclude=dash().exclude())
    except TachikomaError as exc:
        return preview_context(form, error=str(exc)), 500
    return preview_context(form, plan=plan, fingerprint=plan_fingerprint(plan)), 200


def tagged_page(form: TagForm, applied: model.Applied, undo_id: str | None, undone: bool,
                undo_error: str | None = None, planned_skipped: list | None = None,
                outcome: undoing.Outcome | None = None):
    try:
        coverage_now = stats.coverage(dash().root, settings=dash().settings())
    except TachikomaError:
        coverage_now = None
    response = page("tag.html", "partials/tag_applied.html", form=form, applied=applied, undo_id=undo_id,
                    coverage=coverage_now, undone=undone, undo_error=undo_error, outcome=outcome,
                    skipped=list(planned_skipped or []) + applied.skipped,
                    recent=recent_taggings(exclude=undo_id))  # its Undo button is in the message already
    # After the swap, so the list's refresh sees which tagging the new message shows (and leaves it out).
    response.headers["HX-Trigger-After-Swap"] = "tags-changed"
    return response


@bp.get("/tag/recent")
def tag_recent():
    """The recent taggings that can be undone (the tagging page refreshes its list with this), but the
    one whose Undo the page's result message shows (`shown`)."""
    if not is_fragment_request():
        return redirect(url_for("dashboard.tag"), code=303)
    return page("tag.html", "partials/tag_recent.html", recent=recent_taggings(exclude=request.args.get("shown")))


def recent_taggings(exclude: str | None = None) -> list[dict]:
    """The tagging page's list: the dashboard's own taggings (with Undo) and those of the command line and
    MCP, read from git (`recent_taggings`: no undo's commit; those undone, by the dashboard's note or by git, marked
    undone, and the rest with why they have no Undo here), newest first; `exclude`: the one the page's message
    shows."""
    mine = dash().undos.recent(limit=50)
    own = {r.get("commit") for r in mine if r.get("commit")}
    others = [c for c in tagging_commits(dash().root) if c["commit"] not in own]
    return merged([r for r in mine if r["key"] != exclude], others, undone=dash().undos.undone_taggings(),
                  kept=KEPT_UNDOS)


# --------------------------------------------------------------------------- re-index


@bp.get("/reindex")
def reindex_page():
    context = index_panel_context()
    return reindex_panel(context.pop("job"), **context)


@bp.get("/reindex/panel")
def reindex_panel_fragment():
    """The Index panel (facts and job), which the page reloads when the index or the job changes."""
    return render_template("partials/index_panel.html", **index_panel_context())


def index_panel_context() -> dict:
    try:
        fresh = status.freshness(dash().root, dash().settings())
    except TachikomaError as exc:
        fresh = {"error": str(exc)}
    try:
        has_index = dash().has_index()
    except TachikomaError as exc:
        fresh, has_index = {"error": str(exc)}, True  # the panel says why in one line, not "no index yet"
    return {"fresh": fresh, "job": dash().index_job.snapshot(), "has_index": has_index,
            "watching": dash().watching()}


@bp.get("/index/beacon")
def index_beacon():
    """204 while nothing changed since `seen`; else a new beacon and the events that say what changed."""
    seen, now = request.args.get("seen", ""), dash().index_version()
    if seen == now:
        return "", 204
    response = make_response(render_template("partials/index_beacon.html", version=now))
    (old_index, _, old_job), (new_index, _, new_job) = seen.partition("|"), now.partition("|")
    events = (["index-updated"] if old_index != new_index else []) + (["index-job"] if old_job != new_job else [])
    if events:
        response.headers["HX-Trigger"] = ", ".join(events)
    return response


@bp.get("/reindex/status")
def reindex_status():
    job = dash().index_job.snapshot()
    response = reindex_panel(job)
    if request.args.get("poll") and job["state"] in ("done", "failed"):
        response.headers["HX-Trigger"] = "index-updated"  # pages showing index data refresh themselves
    return response


@bp.post("/reindex")
def reindex_start():
    started = dash().index_job.start("reindex")
    if not is_fragment_request():
        return redirect(url_for("dashboard.reindex_page"), code=303)
    return reindex_panel(dash().index_job.snapshot(), status=202 if started else 409, already=not started)


def reindex_panel(job: dict, status: int = 200, **ctx):
    location = dash().location()  # the page says where the index lives: an SQLite file, or a memory in a database
    ctx["shared_index"] = None if location.url is None else {"name": location.name, "database": redacted(location.url)}
    if "has_index" not in ctx:
        try:
            ctx["has_index"] = dash().has_index()
        except TachikomaError as exc:
            ctx["has_index"], ctx["fresh"] = True, {"error": str(exc)}
    return page("reindex.html", "partials/reindex.html", status=status, job=job, **ctx)
