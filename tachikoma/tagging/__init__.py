"""Bulk tagging: choose files, see what would change, write it, and take it back.

`plan` never writes anything. `apply` writes a plan: markdown tags go into
each note's front matter (only the tag lines change, the body stays byte for
byte), transcript tags go into the tag file. It holds a lock on
``<root>/.cache/tag.lock`` while it writes, re-reads every file first and
skips any file whose tags changed since the plan was made, so two people (or
processes) tagging at once never lose each other's tags. In a git repository
the changed files are committed with a message that says what was tagged.
`undo` puts back exactly what was there before, byte for byte when the files
were not touched since.

The commit holds only tachikoma's change, never someone's uncommitted edit
of the same file: the same tag edit is made to the file as it is in HEAD
(and, separately, as it is staged in the index), and those versions are
committed and staged, while the work tree keeps both the person's edit and
the tags. So reverting a tagging commit takes back only the tags. A file
whose committed version cannot be edited safely (malformed front matter
there, not UTF-8, a merge conflict) is written but left out of the commit,
and `Applied.commit_error` says so. A file git has no version of yet
(untracked, including a new tag file) is committed whole, as it is in the
work tree; git-ignored files are not committed. Undo commits the same way.

A note whose front matter sets a tag twice (exactly, or as ``trust`` and
``Trust``) is skipped with a reason rather than guessed at; in the tag file,
where tachikoma rewrites whole entries, tagging a key replaces every spelling
of it.

Markdown files are never tagged by default: `default_plan` tags only
transcripts that have no tags at all, with the agent that wrote them as source
(`DEFAULTS_TEXT` says so, for every face). A .jsonl data file (no line is a
transcript message: `transcripts.is_data_file`) is never tagged, whatever the
selection: it is not memory.

The package, from the bottom up (each module imports only those above it):

- `model`: what a tagging is: the selection (`Selector`), a file's change (`Change`), a
  plan (`Plan`), how to put a file back (`Restore`), what a run wrote (`Applied`).
- `edit`: byte edits of a note's front matter and of the tag file.
- `planning`: `plan` and `default_plan`, the preview (each note's edit tried on the bytes read);
  writes nothing.
- `replaced`: the notes a rewrite replaced, held open for a write that still reaches them.
- `rewrite`: the race-safe atomic rewrite of one note.
- `writers`: the writers' lock every writer of memory files holds.
- `journal`: what writers are about to commit, kept until the commit lands.
- `committing`: the git commit of tachikoma's change only.
- `remembered`: a `remember` run of the journal, found again and committed.
- `recovery`: `recover` and `finish_pending`: finishing runs that were killed or could not commit.
- `applying`: `apply` and `undo`.
- `undoing`: an undo that leaves files as they were: what it restored, what it left and why, and the rest, to
  undo once the reasons are fixed (a tagging partly undone).
"""
