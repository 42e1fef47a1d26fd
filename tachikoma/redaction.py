"""Secrets in memory text replaced by a marker that says what they were (``[secret: AWS key]``).

Agents paste keys into sessions (a tool's output of ``env``, a ``.env`` file read back, a
``curl -u``), and an index that keeps them hands them to every face: the command line, the
dashboard, ``/api/search``, MCP, and a shared PostgreSQL database. The reader redacts a Document as
it is read (`redact_document`), so what is chunked, embedded and stored never holds the value, and
the faces that read a file's text back (MCP ``read``, a budgeted reply's passages, a tool call's
excerpt, the dashboard's file page) redact what they show (`redact_text`, `redact_jsonl_line`). The
files themselves are never changed. ``[privacy] redact_secrets = false`` turns it off (docs/privacy.md).

Detection is Yelp's `detect-secrets`: its known-format detectors (AWS, Stripe, GitHub, GitLab,
Slack, OpenAI, private keys, JWTs, passwords in URLs, ...) and its keyword detector (``NAME_SECRET=
value``, ``password: value``) with its own false-positive filters. Its high-entropy detectors are
not used: they fire on the git SHAs, UUIDs, hashes and base64 a memory is full of (docs/privacy.md
has the counts). A few key formats it does not know are added below as detectors of its own kind
(`_detectors`). A cheap pattern picks the lines that may hold a secret (`_CANDIDATE`); only those go to
the detectors, and each only on a window around what matched, so a long line costs little.

Every function keeps the number of lines: a line range still points at the same lines.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache

#: The marker a secret is replaced by; its kind is said in words.
MARK = "[secret: {}]"
_MARK_RE = re.compile(r"\[secret: [^\]\n]{1,40}\]")

def _compiled_by_re2(source: str):
    """`source` compiled by RE2, ignoring case: it matches in time linear in the text, some fifty times as fast as
    `re` on this many alternatives (bench/bench_redaction.py), and it reads every line of every file indexed."""
    import re2

    options = re2.Options()
    options.case_sensitive = False
    return re2.compile(source, options)


#: What may start a secret on a line: a secret-named key given a value, or a known key format.
#: A text this does not match goes to no detector; nor does a line of one that does.
_KEYWORDS = (r"api_?key|auth_?key|service_?key|account_?key|db_?key|database_?key|priv_?key|private_?key|client_?key"
             r"|db_?pass|database_?pass|key_?pass|password|passwd|pwd|secret|contrase(?:ñ|n)a")
_CANDIDATE = _compiled_by_re2(
    r"(?P<kw>(?:" + _KEYWORDS + r")\w*[\"'\]\\]{0,3}\s*(?::=|=>|[:=]|!=))"
    r"|(?P<env>\b[A-Z][A-Z0-9_]*(?:TOKEN|_AUTH|CREDENTIALS?|_PASS|_PW)[\"'\\]{0,2}\s*[:=])"
    r"|(?P<pem>PRIVATE KEY|PuTTY-User-Key-File)"
    r"|(?P<url>://[^\s/@:]+:[^\s/@]+@)"
    r"|(?P<tok>(?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA)[0-9A-Z]{16}|[rs]k_live_|sk-|gh[pousr]_|github_pat_"
    r"|gl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|agent|oas)-|GR1348941|xox[abposr]-|hooks\.slack\.com/services"
    r"|eyJ|SG\.|AIza|hf_[A-Za-z]|npm_|_authToken|pypi-Ag|sq0csp-|AccountKey=|\b(?:AC|SK)[a-z0-9]{32}"
    r"|-us\d|\b[MNO][a-zA-Z\d_-]{23,25}\.|\d{8,10}:[0-9A-Za-z_-]{35})",
)
#: How far around a candidate a detector looks (a JWT or a PyPI token is long).
_BEFORE, _AFTER = 80, 1200
#: What a known-format key goes on with, when its detector matched only its start.
_TOKEN_TAIL = re.compile(r"[A-Za-z0-9_\-]*")
#: Where a keyword's value ends: at a space, a quote, an escape, a separator.
_VALUE_END = re.compile(r"[\s\"'`\\,;<>]")
_PEM_END = re.compile(r"-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|---- END SSH2 ENCRYPTED PRIVATE KEY ----")
#: A line inside a private key block: base64, its headers ("Proc-Type: ..."), or nothing.
_PEM_BODY = re.compile(r"^[\sA-Za-z0-9+/=]*$|^[A-Za-z-]+: ")

#: detect-secrets' kinds, in words.
_LABELS = {
    "AWS Access Key": "AWS key", "Stripe Access Key": "Stripe key", "GitHub Token": "GitHub token",
    "GitLab Token": "GitLab token", "Slack Token": "Slack token", "OpenAI Token": "OpenAI key",
    "Private Key": "private key", "JSON Web Token": "JSON web token", "Basic Auth Credentials": "password in URL",
    "SendGrid API Key": "SendGrid key", "Twilio API Key": "Twilio key", "NPM tokens": "npm token",
    "PyPI Token": "PyPI token", "Square OAuth Secret": "Square secret",
    "Azure Storage Account access key": "Azure storage key", "Mailchimp Access Key": "Mailchimp key",
    "Discord Bot Token": "Discord token", "Telegram Bot Token": "Telegram token",
}
#: Values given to a secret-named key that are no secret: placeholders, references, words of a sentence.
_PLACEHOLDER = re.compile(r"^(?:true|false|none|null|nil|undefined|required|optional|string|env|secret|password"
                          r"|redacted|changeme|example\w*|your\w*|my\w*|xxx+\w*|\*+|\.\.\.+|…|<.*|\{.*|%\(.*|\$.*"
                          r"|https?:.*|/.*|~/.*|\.{1,2}/.*|process\.env.*|os\.environ.*|getenv.*)$", re.IGNORECASE)


@lru_cache(maxsize=1)
def _detectors() -> tuple:
    """(detector, kind in words or None) for the known formats, and the keyword detector: built once,
    on the first line that needs them (detect-secrets takes a tenth of a second to import)."""
    from detect_secrets.plugins import (aws, azure_storage_key, basic_auth, discord, github_token, gitlab_token,
                                        jwt, mailchimp, npm, openai, private_key, pypi_token, sendgrid, slack,
                                        square_oauth, stripe, telegram_token, twilio)
    from detect_secrets.plugins.base import RegexBasedDetector
    from detect_secrets.plugins.keyword import CONFIG_DENYLIST_REGEX_TO_GROUP, KeywordDetector

    class Extra(RegexBasedDetector):
        """Key formats detect-secrets 1.5 does not know (its OpenAI detector knows only the keys of before
        2024): OpenAI's and Anthropic's ``sk-`` keys, GitHub's fine-grained tokens, Google API keys,
        Hugging Face tokens, and an upper-case ``*_TOKEN=`` / ``*_PASS=`` assignment."""

        secret_type = "API key"
        denylist = (re.compile(r"\bsk-(?:proj-|ant-(?:api|admin)\d\d-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}"),
                    re.compile(r"\bgithub_pat_[A-Za-z0-9_]{40,}"),
                    re.compile(r"\bAIza[0-9A-Za-z_-]{35}"),
                    re.compile(r"\bhf_[A-Za-z0-9]{30,}"))

    class EnvToken(RegexBasedDetector):
        secret_type = "token"
        denylist = (re.compile(r"\b[A-Z][A-Z0-9_]*(?:TOKEN|_AUTH|CREDENTIALS?|_PASS|_PW)[\"'\\]{0,2}\s*[:=]\s*"
                               r"\\?[\"']?([^\s\"'`\\,;]{8,})"),)

    formats = [(plugin(), _LABELS.get(plugin.secret_type)) for plugin in (
        aws.AWSKeyDetector, stripe.StripeDetector, github_token.GitHubTokenDetector,
        gitlab_token.GitLabTokenDetector, slack.SlackDetector, openai.OpenAIDetector, jwt.JwtTokenDetector,
        sendgrid.SendGridDetector, twilio.TwilioKeyDetector, npm.NpmDetector, pypi_token.PypiTokenDetector,
        square_oauth.SquareOAuthDetector, azure_storage_key.AzureStorageKeyDetector, mailchimp.MailchimpDetector,
        discord.DiscordBotTokenDetector, telegram_token.TelegramBotTokenDetector)]
    formats.append((Extra(), "API key"))
    return (formats, (basic_auth.BasicAuthDetector(), "password in URL"), (private_key.PrivateKeyDetector(), None),
            (KeywordDetector(), CONFIG_DENYLIST_REGEX_TO_GROUP), (EnvToken(), "token"))


def _no_secret(value: str, line: str) -> bool:
    """detect-secrets' own false-positive filters for a keyword's value, and a few of ours: too short, a
    placeholder or reference, a word of a sentence (letters only, not mixed case, under 20 characters)."""
    from detect_secrets.filters import heuristic

    if len(value) < 6 or _PLACEHOLDER.match(value):
        return True
    if (heuristic.is_sequential_string(value) or heuristic.is_potential_uuid(value)
            or heuristic.is_templated_secret(value) or heuristic.is_not_alphanumeric_string(value)
            or heuristic.is_likely_id_string(value, line) or heuristic.is_indirect_reference(line)):
        return True
    if re.fullmatch(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+", value):  # the name of a variable, not its value
        return True
    plain = value.isalpha() and (value.islower() or value.isupper() or value[1:].islower())
    return plain and len(value) < 20


def _prose(key: str, window: str, value: str) -> bool:
    """Whether a ``key: value`` reads as a sentence ("Passwords: 1Password, the Home vault"): given with a
    colon, the value followed by a comma or a full stop and more words."""
    if not key.rstrip().endswith(":"):
        return False
    after = window.find(value)
    return bool(re.match(r"[,.;] +\w", window[after + len(value):]))


def _keyword_label(key: str) -> str:
    """What a secret-named key's value is, in words, by the key's name ("AWS_SECRET_ACCESS_KEY": an AWS secret key)."""
    key = key.lower()
    if "aws" in key:
        return "AWS secret key"
    if "pass" in key or "pwd" in key or "contrase" in key:
        return "password"
    if "api" in key:
        return "API key"
    if "priv" in key:
        return "private key"
    return "secret"


class Redactor:
    """Redacts line after line, keeping what it learnt: whether a private key block is open, and the values
    found (`sweep` replaces them where they come again without their key). `count` is how many were replaced."""

    def __init__(self):
        self.count = 0
        self.values: dict[str, str] = {}  # value → its kind in words
        self.in_key = False

    def line(self, line: str) -> str:
        if self.in_key:
            if _PEM_END.search(line):
                self.in_key = False
                return ""
            if _PEM_BODY.match(line):
                return ""
            self.in_key = False  # the block ended without its END line
        if not _CANDIDATE.search(line):
            return line
        spans = self._spans(line)
        for start, end, label in sorted(spans, reverse=True):
            line = line[:start] + MARK.format(label) + line[end:]
        self.count += len(spans)
        return line

    def text(self, text: str) -> str:
        """`text` redacted line by line; the same number of lines."""
        if not text or (not self.in_key and not _CANDIDATE.search(text)):
            return text
        return "\n".join(self.line(line) for line in text.split("\n"))

    def sweep(self, text: str) -> str:
        """`text` with the values already found (eight characters or more) replaced wherever they are."""
        for value, label in self.values.items():
            if len(value) >= 8 and value in text:
                self.count += text.count(value)
                text = text.replace(value, MARK.format(label))
        return text

    def _spans(self, line: str) -> list[tuple[int, int, str]]:
        formats, auth, pem, keyword, env = _detectors()
        view = _MARK_RE.sub(lambda m: " " * len(m.group()), line)  # a marker is never read as a key
        found: list[tuple[int, int, str]] = []

        def add(lo: int, window: str, value: str, label: str, tail: bool) -> None:
            at = window.find(value) if value else -1
            while at >= 0:
                start = lo + at
                end = start + len(value)
                if tail:
                    end = _TOKEN_TAIL.match(view, end).end()
                found.append((start, end, label))
                at = window.find(value, at + len(value))

        formats_until = -1  # the known formats were looked for up to here
        for hit in _CANDIDATE.finditer(view):
            group = hit.lastgroup
            if group == "pem":
                begin = view.find("-----BEGIN")
                begin = begin if begin >= 0 else view.find("PuTTY-User-Key-File")
                if begin >= 0 and any(True for _ in pem[0].analyze_string(view[begin:begin + 200])):
                    end = _PEM_END.search(view, begin)
                    found.append((begin, end.end() if end else len(line), "private key"))
                    self.in_key = end is None
                continue
            if group == "url":  # the password between "user:" and "@", when detect-secrets agrees
                start = hit.start() + hit.group().index(":", 3) + 1
                value = view[start:hit.end() - 1]
                if any(True for _ in auth[0].analyze_string(hit.group())) and not _PLACEHOLDER.match(value):
                    found.append((start, hit.end() - 1, auth[1]))
                continue
            if group in ("kw", "env"):
                window = view[hit.start():hit.start() + _AFTER]
                if group == "kw":
                    values = keyword[0].analyze_string(window, denylist_regex_to_group=keyword[1])
                else:
                    values = env[0].analyze_string(window)
                key = re.search(r"[\w.-]*$", view[:hit.start()]).group() + hit.group()
                label = _keyword_label(key) if group == "kw" else env[1]
                for value in values:
                    value = _VALUE_END.split(value.strip(), 1)[0].rstrip(").]}")
                    if not _no_secret(value, window[:200]) and not _prose(hit.group(), window, value):
                        self.values.setdefault(value, label)
                        add(hit.start(), window, value, label, False)
                continue
            if hit.start() < formats_until:
                continue
            lo = max(0, hit.start() - _BEFORE)
            window = view[lo:hit.start() + _AFTER]
            formats_until = hit.start() + _AFTER - 400
            for detector, label in formats:
                for value in detector.analyze_string(window):
                    named = "AWS secret key" if label == "AWS key" and len(value) == 40 else label
                    self.values.setdefault(value, named)
                    add(lo, window, value, named, True)
        return _disjoint(found)


def _disjoint(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """The spans without overlaps: of two that overlap the one that starts first (the longer when both
    start together), its end stretched over the other; a known format's name wins over a keyword's."""
    keyword_labels = {"password", "secret", "API key", "private key", "token"}
    out: list[list] = []
    for start, end, label in sorted(set(spans), key=lambda s: (s[0], -s[1])):
        if out and start < out[-1][1]:
            last = out[-1]
            last[1] = max(last[1], end)
            if last[2] in keyword_labels and label not in keyword_labels:
                last[2] = label
            continue
        out.append([start, end, label])
    return [tuple(s) for s in out]


def redact_text(text: str) -> tuple[str, int]:
    """`text` with its secrets replaced, and how many there were; the same lines."""
    redactor = Redactor()
    out = redactor.text(text)
    if redactor.values:
        out = redactor.sweep(out)
    return out, redactor.count


def redact_jsonl_line(raw: str) -> tuple[str, int]:
    """One transcript line as it is in the file (JSON): each of its strings redacted, the line written
    again only if one changed (as compact JSON); a line that is not JSON is redacted as text."""
    if not _CANDIDATE.search(raw):
        return raw, 0
    try:
        obj = json.loads(raw)
    except (ValueError, RecursionError):
        return redact_text(raw)
    redactor = Redactor()
    changed = _redact_strings(obj, redactor)
    if not redactor.count:
        return raw, 0
    return json.dumps(changed, ensure_ascii=False, separators=(",", ":")), redactor.count


def _redact_strings(value, redactor: Redactor, key: str = ""):
    if isinstance(value, str):
        return _keyed(redactor, key, value) if key else redactor.text(value)
    if isinstance(value, dict):
        return {k: _redact_strings(v, redactor, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [_redact_strings(v, redactor) for v in value]
    return value


def _keyed(redactor: Redactor, key: str, value: str) -> str:
    """A value under a key (front matter, a tool call's argument, a JSON field): read as ``key: value`` so a
    secret-named key's value is found too; the value redacted."""
    if not value or "\n" in value or not re.search(_KEYWORDS, key, re.IGNORECASE):
        return redactor.text(value)
    prefix = f"{key}: "
    return redactor.line(prefix + value)[len(prefix):]


def redact_document(doc) -> int:
    """Redact a `documents.Document` in place, every text a face may show or the index keeps: a note's body
    and front matter values, a transcript's turns (text, tool lines, context) and tool texts. Returns how
    many secrets were replaced."""
    if not _CANDIDATE.search("\n".join(_texts(doc))):  # most files: one search, no detector
        return 0
    redactor = Redactor()
    doc.text = redactor.text(doc.text)
    doc.meta = {k: _redact_strings(v, redactor, str(k)) for k, v in doc.meta.items()} if doc.meta else doc.meta
    for turn in doc.turns:
        turn.text = redactor.text(turn.text)
        turn.actions = [redactor.text(a) for a in turn.actions]
        turn.context = redactor.text(turn.context)
        for tool in turn.tool_texts:
            tool.text = redactor.text(tool.text)
            tool.parts = [(k, _keyed(redactor, k, v)) for k, v in tool.parts]
    if redactor.values:  # a value found once, shown again elsewhere without its key
        sweep = redactor.sweep
        doc.text = sweep(doc.text)
        for turn in doc.turns:
            turn.text = sweep(turn.text)
            turn.actions = [sweep(a) for a in turn.actions]
            for tool in turn.tool_texts:
                tool.text = sweep(tool.text)
                tool.parts = [(k, sweep(v)) for k, v in tool.parts]
    return redactor.count


def _texts(doc):
    """Every text of `doc` that `redact_document` reads, a value under a key as ``key: value``."""
    yield doc.text
    yield json.dumps(doc.meta, ensure_ascii=False, default=str).replace('": ', ': ') if doc.meta else ""
    for turn in doc.turns:
        yield turn.text
        yield from turn.actions
        yield turn.context
        for tool in turn.tool_texts:
            yield tool.text
            yield from (f"{k}: {v}" for k, v in tool.parts)
