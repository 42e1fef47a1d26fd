"""Reading: one memory file becomes a Document (its text, turns, tags, dates and warnings), whatever state the file is in.

`reader` reads a file; `frontmatter` and `tagfile` read (and edit in place) the tags of a note and of the tag file;
`tags` is their vocabulary; `dates` a memory's date; `documents` what a file becomes; `turn_view` a transcript as an
agent reads it (MCP `read`); `surrogates` half a character made U+FFFD; `logseq` a Logseq graph as Logseq defines it.
The transcript formats are in `transcripts/`.
"""
